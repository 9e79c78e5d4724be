package org.planck.lab.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code index.html} of a lab report directory: every file in it, grouped by what it is
 * (report, tables, charts, live view, logs, configuration, per-run fabric files), with the
 * charts and the screenshot shown inline and the live page's address.
 */
final class ReportIndex {
    /** File name inside the report directory. */
    static final String FILE = "index.html";

    private static final Set<String> LIVE_VIEW = Set.of(LiveViewRecording.FILE, LabReportFinish.SCREENSHOT,
                                                        LabReportFinish.CHECKS, LabReportFinish.RECORDER_LOG);

    /** What the lab's own files are. */
    private static final Map<String, String> ABOUT = Map.ofEntries(
            Map.entry("report.md", "the experiment's report: settings, tables, charts, loop latency"),
            Map.entry("throughput.csv", "one row per workload and mode: flow throughput, moves, fabric lag"),
            Map.entry("flows.csv", "every flow: endpoints, bytes, start and finish, throughput, retransmits"),
            Map.entry("loop-latency.csv", "every TE decision: trigger, port, timestamps along the loop"),
            Map.entry("moves.csv", "every flow TE moved: time, flow, congested port, paths, decision latency"),
            Map.entry(LabReportFinish.SCREENSHOT, "the live fabric view in headless Chromium, mid-run"),
            Map.entry(LabReportFinish.CHECKS, "what the browser checked on the live page"),
            Map.entry(LiveViewRecording.FILE, "the browser's record: DOM at the screenshot, when each move appeared"),
            Map.entry(LabReportFinish.RECORDER_LOG, "the browser recorder's output"),
            Map.entry("collector.log", "planck-collector's log"),
            Map.entry("collector.toml", "planck-collector's configuration for this lab"));

    private ReportIndex() {
    }

    /** The group a file (path relative to the report directory, '/'-separated) belongs to. */
    static String group(String rel) {
        String name = rel.substring(rel.lastIndexOf('/') + 1);
        if (rel.contains("/")) {
            return rel.substring(0, rel.indexOf('/') + 1);
        }
        if (LIVE_VIEW.contains(name)) {
            return "Live fabric view";
        }
        if (name.endsWith(".md")) {
            return "Report";
        }
        if (name.endsWith(".csv")) {
            return "Tables";
        }
        if (name.endsWith(".png") || name.endsWith(".svg")) {
            return "Charts";
        }
        if (name.endsWith(".log")) {
            return "Logs";
        }
        if (name.endsWith(".toml")) {
            return "Configuration";
        }
        return "Other";
    }

    /**
     * Writes index.html.
     *
     * @param dir     report directory
     * @param liveUrl the live page's address while the lab ran, or null
     * @return the files listed (relative paths)
     * @throws IOException on read/write failure
     */
    static List<String> write(Path dir, String liveUrl) throws IOException {
        List<String> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString().replace('\\', '/'))
                    .filter(r -> !r.equals(FILE)).sorted().collect(Collectors.toList());
        }
        Map<String, List<String>> groups = new LinkedHashMap<>();
        for (String g : List.of("Report", "Live fabric view", "Tables", "Charts", "Logs", "Configuration")) {
            groups.put(g, new ArrayList<>());
        }
        for (String f : files) {
            groups.computeIfAbsent(group(f), k -> new ArrayList<>()).add(f);
        }
        StringBuilder h = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<title>Planck lab report: " + esc(dir.getFileName().toString()) + "</title>\n<style>"
                + "body{font-family:sans-serif;margin:16px;max-width:1100px} img{max-width:520px;border:1px solid #ccc;"
                + "display:block;margin:4px 0 12px} li{margin:2px 0} .size{color:#777;font-size:12px}</style>"
                + "</head><body>\n<h1>Planck lab report: " + esc(dir.getFileName().toString()) + "</h1>\n");
        h.append("<p>Every file of this report directory (").append(files.size()).append(" files).");
        if (liveUrl != null && !liveUrl.isEmpty()) {
            h.append(" While the lab ran, its live fabric view was served at <a href=\"").append(esc(liveUrl))
                    .append("\">").append(esc(liveUrl)).append("</a> (gone once the lab ends; the screenshot below"
                    + " was taken from it mid-run).");
        }
        h.append("</p>\n");
        for (Map.Entry<String, List<String>> g : groups.entrySet()) {
            if (g.getValue().isEmpty()) {
                continue;
            }
            String title = g.getKey().endsWith("/") ? g.getKey() + (g.getKey().equals("fabric/")
                    ? " (one emulated fabric per run: its config and log)" : "") : g.getKey();
            h.append("<h2>").append(esc(title)).append("</h2>\n<ul>\n");
            for (String f : g.getValue()) {
                long size = Files.size(dir.resolve(f));
                h.append("<li><a href=\"").append(href(f)).append("\">").append(esc(f)).append("</a> <span class=\"size\">")
                        .append(size < 1024 ? size + " B" : size / 1024 + " KiB").append("</span>");
                if (ABOUT.containsKey(f)) {
                    h.append(" &mdash; ").append(esc(ABOUT.get(f)));
                }
                if (f.endsWith(".png") && !f.contains("/")) {
                    h.append("<img src=\"").append(href(f)).append("\" alt=\"").append(esc(f)).append("\">");
                }
                h.append("</li>\n");
            }
            h.append("</ul>\n");
        }
        h.append("</body></html>\n");
        Files.writeString(dir.resolve(FILE), h.toString(), StandardCharsets.UTF_8);
        return files;
    }

    /** A relative path as a URL path (spaces and the like escaped). */
    static String href(String rel) {
        try {
            return esc(new java.net.URI(null, null, rel, null).toASCIIString());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException(rel, e);
        }
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

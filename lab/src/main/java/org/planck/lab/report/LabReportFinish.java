package org.planck.lab.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Finishes a lab report directory once the experiment has written it: judges the live view
 * recording against the move log ({@code live-view-checks.txt}), appends a "Live fabric view"
 * section to report.md (the page's address, the screenshot, the checks) and writes
 * {@code index.html} linking every file. Run by {@code lab/live-view.sh report DIR}.
 */
public final class LabReportFinish {
    static final String SCREENSHOT = "lab-live-view.png";
    static final String CHECKS = "live-view-checks.txt";
    static final String RECORDER_LOG = "live-view.log";
    static final String MARKER = "<!-- live fabric view (lab/live-view.sh) -->";

    private LabReportFinish() {
    }

    /**
     * Finishes a report directory.
     *
     * @param dir report directory with report.md and moves.csv
     * @return the live view checks
     * @throws IOException if the report cannot be read or written, or a file is malformed
     */
    static LiveViewChecks finish(Path dir) throws IOException {
        Path report = dir.resolve("report.md");
        if (!Files.isRegularFile(report)) {
            throw new IOException(report + ": no report (did the experiment finish?)");
        }
        Path recFile = dir.resolve(LiveViewRecording.FILE);
        Path movesFile = dir.resolve("moves.csv");
        LiveViewRecording rec = Files.isRegularFile(recFile) ? LiveViewRecording.read(recFile) : null;
        LiveViewChecks checks = null;
        if (rec != null) {
            checks = LiveViewChecks.of(rec, MoveLog.read(movesFile), dir);
            Files.writeString(dir.resolve(CHECKS), checks.text(), StandardCharsets.UTF_8);
        }
        String md = Files.readString(report);
        int old = md.indexOf(MARKER);
        if (old >= 0) {
            md = md.substring(0, old);
        }
        Files.writeString(report, md.stripTrailing() + "\n\n" + section(rec, checks), StandardCharsets.UTF_8);
        ReportIndex.write(dir, rec == null ? null : rec.url);
        return checks;
    }

    /** The report's "Live fabric view" section. */
    static String section(LiveViewRecording rec, LiveViewChecks checks) {
        StringBuilder sb = new StringBuilder(MARKER).append("\n## Live fabric view\n\n");
        if (rec == null) {
            sb.append("Not recorded: no ").append(LiveViewRecording.FILE)
                    .append(" (the experiment ran without lab/live-view.sh).\n");
        } else {
            if (!rec.url.isEmpty()) {
                sb.append("While it ran, the lab served its live fabric view at <").append(rec.url)
                        .append("> (gone once the lab ends).\n");
            }
            if (!rec.recorded()) {
                sb.append("Not recorded in a browser: ").append(rec.reason).append(".\n");
            } else {
                sb.append("Headless Chromium loaded it during the run (lab/live-view.sh, at nice 19 beside the "
                        + "experiment), the page polling every ")
                        .append(rec.pollMs).append(" ms, and took this screenshot the first time a PlanckTE run was "
                        + "drawn with loaded links and a move listed")
                        .append(checks.snapshotRun.isEmpty() ? "" : " (" + checks.snapshotRun + ")").append(":\n\n")
                        .append("![live fabric view during a PlanckTE run](").append(rec.screenshot).append(")\n\n");
                if (rec.followPollMs != rec.pollMs) {
                    sb.append("After the screenshot the page went back to polling every ").append(rec.followPollMs)
                            .append(" ms (its default) while the browser kept timing the moves.\n\n");
                }
                sb.append("Checks (").append(CHECKS).append("; a move's time is moves.csv's time_ms, "
                        + "when the controller decided it):\n\n");
                for (String line : checks.text().split("\n")) {
                    sb.append("- ").append(line).append('\n');
                }
            }
        }
        sb.append("\nEvery file of this report: [").append(ReportIndex.FILE).append("](").append(ReportIndex.FILE)
                .append(").\n");
        return sb.toString();
    }

    /**
     * Command line: {@code LabReportFinish DIR}. Exit 0 when the report was finished (whatever
     * the live view checks say: they are in the report), 2 on bad use or malformed files.
     *
     * @param args report directory
     */
    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: LabReportFinish <lab report directory>");
            System.exit(2);
        }
        Path dir = Paths.get(args[0]);
        try {
            LiveViewChecks c = finish(dir);
            System.out.println("live view: " + (c == null ? "not recorded" : c.passed() ? "all checks passed"
                    : c.rec.recorded() ? "CHECKS FAILED (" + dir.resolve(CHECKS) + ")" : "not recorded: " + c.rec.reason)
                    + "; index: " + dir.resolve(ReportIndex.FILE));
        } catch (IOException e) {
            System.err.println("lab report: " + e.getMessage());
            System.exit(2);
        }
    }
}

package org.planck.lab.ovs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The OVS report's loop latency with "rule in force" taken from the switches' barrier replies: on
 * this fabric {@code fabric_applied_us} of {@code loop-latency.csv} is the wall-clock time the last
 * switch of the batch answered its barrier (the emulated fabric's is its own timeslot clock). The
 * report's own table ends at the controller's receipt of the HTTP answer; this one splits that.
 */
final class BarrierLatencySection {
    private BarrierLatencySection() {
    }

    /**
     * The section's markdown from a report's {@code loop-latency.csv}.
     *
     * @param csv loop-latency.csv
     * @return markdown, or empty text if no decision moved flows
     * @throws IOException if the file cannot be read
     */
    static String markdown(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv);
        if (lines.size() < 2) {
            return "";
        }
        List<String> head = Arrays.asList(lines.get(0).split(","));
        int mode = head.indexOf("mode");
        int sample = head.indexOf("sample_us");
        int submitted = head.indexOf("submitted_us");
        int applied = head.indexOf("fabric_applied_us");
        int answered = head.indexOf("answered_us");
        int moves = head.indexOf("moves");
        int window = head.indexOf("window_us");
        if (Math.min(Math.min(mode, sample), Math.min(Math.min(submitted, applied), Math.min(answered, moves))) < 0) {
            throw new IOException(csv + ": columns missing");
        }
        // mode -> interval -> values
        Map<String, Map<String, List<Long>>> by = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] c = line.split(",");
            if (Long.parseLong(c[moves]) <= 0 || Long.parseLong(c[applied]) <= 0) {
                continue;
            }
            long a = Long.parseLong(c[applied]);
            Map<String, List<Long>> m = by.computeIfAbsent(c[mode], k -> new LinkedHashMap<>());
            if (Long.parseLong(c[submitted]) > 0) {
                m.computeIfAbsent("rules submitted → barrier reply (in force)", k -> new ArrayList<>())
                        .add(a - Long.parseLong(c[submitted]));
            }
            m.computeIfAbsent("barrier reply → controller has the answer", k -> new ArrayList<>())
                    .add(Long.parseLong(c[answered]) - a);
            m.computeIfAbsent("**sample → rule in force (barrier reply)**", k -> new ArrayList<>())
                    .add(a - Long.parseLong(c[sample]));
            if (window >= 0 && Long.parseLong(c[window]) > 0) {
                m.computeIfAbsent("measurement window start → rule in force", k -> new ArrayList<>())
                        .add(a - Long.parseLong(c[sample]) + Long.parseLong(c[window]));
            }
        }
        if (by.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder("## Rule in force from the barrier reply (decisions that moved flows, µs)\n\n")
                .append("| mode | interval | n | p50 | p90 | p99 | max |\n|---|---|---:|---:|---:|---:|---:|\n");
        by.forEach((m, intervals) -> intervals.forEach((name, vs) -> {
            long[] s = vs.stream().mapToLong(Long::longValue).sorted().toArray();
            sb.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %d | %d | %d |%n", m, name, s.length,
                                    pct(s, 50), pct(s, 90), pct(s, 99), s[s.length - 1]));
        }));
        return sb.append('\n').toString();
    }

    /** Nearest-rank percentile. */
    static long pct(long[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}

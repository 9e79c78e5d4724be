package org.planck.lab.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The lab's own log of TE moves ({@code moves.csv}), keyed as the live view lists them:
 * "src:sport->dst:dport/proto@time_ms".
 */
final class MoveLog {
    /** A logged move: its run and time. */
    static final class Entry {
        final String workload;
        final String mode;
        final long timeMs;

        Entry(String workload, String mode, long timeMs) {
            this.workload = workload;
            this.mode = mode;
            this.timeMs = timeMs;
        }
    }

    private static final List<String> COLUMNS = List.of("workload", "mode", "time_ms", "src", "dst", "proto",
                                                        "sport", "dport");

    final Map<String, Entry> byKey;

    private MoveLog(Map<String, Entry> byKey) {
        this.byKey = byKey;
    }

    /**
     * Reads moves.csv.
     *
     * @param file the log
     * @return moves by key
     * @throws IOException if unreadable or without the expected columns
     */
    static MoveLog read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        if (lines.isEmpty()) {
            throw new IOException(file + ": empty (no header)");
        }
        List<String> header = Arrays.asList(lines.get(0).split(","));
        int[] col = new int[COLUMNS.size()];
        for (int i = 0; i < col.length; i++) {
            col[i] = header.indexOf(COLUMNS.get(i));
            if (col[i] < 0) {
                throw new IOException(file + ": no column " + COLUMNS.get(i));
            }
        }
        Map<String, Entry> byKey = new LinkedHashMap<>();
        for (int n = 1; n < lines.size(); n++) {
            if (lines.get(n).isBlank()) {
                continue;
            }
            String[] f = lines.get(n).split(",", -1);
            if (f.length < header.size()) {
                throw new IOException(file + ":" + (n + 1) + ": " + f.length + " fields, expected " + header.size());
            }
            long time;
            try {
                time = Long.parseLong(f[col[2]]);
            } catch (NumberFormatException e) {
                throw new IOException(file + ":" + (n + 1) + ": time_ms is not a number: " + f[col[2]], e);
            }
            String key = f[col[3]] + ":" + f[col[6]] + "->" + f[col[4]] + ":" + f[col[7]] + "/" + f[col[5]] + "@" + time;
            byKey.put(key, new Entry(f[col[0]], f[col[1]], time));
        }
        return new MoveLog(byKey);
    }
}

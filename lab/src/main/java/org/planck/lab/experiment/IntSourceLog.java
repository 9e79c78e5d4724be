package org.planck.lab.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import org.planck.lab.control.IntQueueCongestion;
import org.planck.lab.control.LoopLatencyLog;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Per run, what the fabric's INT stage did (its {@code GET /v1/status} counters) and what the
 * controller made of the INT signals: {@code int-source.csv}, and a summary line.
 */
public final class IntSourceLog {
    public static final String CSV = "int-source.csv";
    static final String HEADER = "workload,mode,seed,sampled,reports,reports_dropped,stacks_lost,unsunk,hops_exceeded,"
            + "sink_errors,controller_signals,queue_congestions,int_decisions,int_moves\n";

    private final List<String> rows = new ArrayList<>();
    private long reports;
    private long signals;
    private long intMoves;

    /**
     * Records one run.
     *
     * @param workload  workload label
     * @param mode      mode label
     * @param seed      seed
     * @param fabric    the fabric's INT counters (missing node: the fabric ran no INT)
     * @param ports     the controller's INT port state
     * @param decisions the run's TE decisions
     */
    public synchronized void add(String workload, String mode, long seed, JsonNode fabric, IntQueueCongestion ports,
                                 List<LoopLatencyLog.Entry> decisions) {
        long decided = 0;
        long moved = 0;
        for (LoopLatencyLog.Entry e : decisions) {
            if (e.trigger() == LoopLatencyLog.Trigger.INT_QUEUE) {
                decided++;
                moved += Math.max(0, e.moves());
            }
        }
        long rep = fabric.path("reports").asLong();
        reports += rep;
        signals += ports.signals();
        intMoves += moved;
        rows.add(String.format(Locale.ROOT, "%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d%n", workload, mode, seed,
                               fabric.path("sampled").asLong(), rep, fabric.path("reportsDropped").asLong(),
                               fabric.path("stacksLost").asLong(), fabric.path("unsunk").asLong(),
                               fabric.path("hopsExceeded").asLong(), fabric.path("sinkErrors").asLong(),
                               ports.signals(), ports.congestions(), decided, moved));
    }

    /**
     * Writes {@value #CSV}.
     *
     * @param dir report directory
     * @throws IOException on a write failure
     */
    public synchronized void write(Path dir) throws IOException {
        StringBuilder sb = new StringBuilder(HEADER);
        rows.forEach(sb::append);
        Files.writeString(dir.resolve(CSV), sb.toString(), StandardCharsets.UTF_8);
    }

    /**
     * One line for the console.
     *
     * @return summary
     */
    public synchronized String summary() {
        return String.format(Locale.ROOT, "planck-lab: INT: %d runs, %d telemetry reports from the fabric, "
                + "%d INT_PORT signals at the controller, %d flows moved on INT queue congestion (%s)%n",
                rows.size(), reports, signals, intMoves, CSV);
    }
}

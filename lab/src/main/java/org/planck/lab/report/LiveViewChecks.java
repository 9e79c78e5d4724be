package org.planck.lab.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Judges a live view recording against the lab's own move log: the DOM at the screenshot
 * (links drawn and loaded, a move listed, a PlanckTE run) and, for every move the page showed
 * while it was watching, the time from the move (moves.csv's time_ms, the controller's
 * decision) to its first appearance on the page: within the page's poll interval plus
 * {@link #MAX_LATE_MS} (a page that stops updating fails), and, reported but not failed, within
 * {@link #TARGET_LAG_MS}, the live view's target.
 */
final class LiveViewChecks {
    /**
     * The live view's target: a move on the page within a second of the decision. Reported (a
     * "target not met" line), not failed: the page (Chromium at nice 19 beside an experiment that
     * holds both cores of a small machine) is late by however long the machine keeps it off a
     * core, a figure of the machine; speed targets are benchmarks' to check.
     */
    static final long TARGET_LAG_MS = 1000;
    /** A move shown later than its poll interval plus this fails: the page is stuck, not late. */
    static final long MAX_LATE_MS = 2000;

    /** The mode whose run the screenshot should show. */
    static final String SNAPSHOT_MODE = "PLANCK";

    /** One check: passed or not, and what it says. */
    static final class Check {
        final boolean ok;
        final String text;
        /** A target: reported when missed, never a failure. */
        final boolean target;

        Check(boolean ok, String text, boolean target) {
            this.ok = ok;
            this.text = text;
            this.target = target;
        }
    }

    final LiveViewRecording rec;
    final List<Check> checks = new ArrayList<>();
    /** Lags (ms) of the moves measured, ascending. */
    long[] lagsMs = new long[0];
    int beforePage;
    int duringPause;
    final List<String> unmatched = new ArrayList<>();
    /** How many moves were timed at each poll interval, e.g. "5 at 50 ms, 23 at 500 ms", or "". */
    String pollSplit = "";
    /** Run the screenshot shows as the page named it, else from moves.csv ("stride8 / PlanckTE"), or "". */
    String snapshotRun = "";

    private LiveViewChecks(LiveViewRecording rec) {
        this.rec = rec;
    }

    /**
     * Checks a recording.
     *
     * @param rec the recording
     * @param log the lab's move log
     * @param dir report directory (for the screenshot)
     * @return the checks
     */
    static LiveViewChecks of(LiveViewRecording rec, MoveLog log, Path dir) {
        LiveViewChecks c = new LiveViewChecks(rec);
        if (!rec.recorded()) {
            return c;
        }
        c.screenshot(dir);
        c.snapshot(log);
        c.moves(log);
        c.add(rec.pageErrors.isEmpty(), "no script errors on the page"
                + (rec.pageErrors.isEmpty() ? "" : ": " + String.join("; ", rec.pageErrors)));
        return c;
    }

    private void add(boolean ok, String text) {
        checks.add(new Check(ok, text, false));
    }

    private void target(boolean met, String text) {
        checks.add(new Check(met, text, true));
    }

    private void screenshot(Path dir) {
        Path shot = rec.screenshot == null ? null : dir.resolve(rec.screenshot);
        long size = 0;
        try {
            size = shot != null && Files.isRegularFile(shot) ? Files.size(shot) : 0;
        } catch (IOException e) {
            size = 0;
        }
        add(size > 0, "screenshot " + (shot == null ? "(none)" : rec.screenshot) + " saved ("
                + size / 1024 + " KiB)");
    }

    private void snapshot(MoveLog log) {
        LiveViewRecording.Snapshot s = rec.snapshot;
        if (s == null) {
            add(false, "the DOM was read at the screenshot");
            return;
        }
        MoveLog.Entry first = log.byKey.get(s.firstMoveKey);
        if (!s.run.isEmpty()) {
            snapshotRun = s.run;
        } else if (first != null) {
            snapshotRun = first.workload + " / " + first.mode;
        }
        add(SNAPSHOT_MODE.equals(s.mode), "the screenshot shows a PlanckTE run while its flows move (mode "
                + s.mode + (snapshotRun.isEmpty() ? "" : ", " + snapshotRun) + ")");
        add(s.topologyLinks > 0 && s.linksDrawn == s.topologyLinks, "links drawn: " + s.linksDrawn + " of the "
                + s.topologyLinks + " switch-to-switch links in the view's topology; " + s.switches + " switches, "
                + s.hosts + " hosts");
        add(s.switches > 0 && s.hosts > 0, "switches and hosts drawn");
        add(s.linksLoaded > 0, "links with non-zero load: " + s.linksLoaded + " (the busiest at "
                + String.format(Locale.ROOT, "%.2f Gb/s", s.maxLoadBps / 1e9) + "); congested (blinking): "
                + s.congestedLinks);
        add(s.movesListed > 0 && first != null, "TE moves listed: " + s.movesListed + "; the newest ("
                + s.firstMove + ") is in moves.csv" + (first == null ? ": NOT FOUND" : ""));
    }

    private void moves(MoveLog log) {
        List<Long> lags = new ArrayList<>();
        long worstOverPoll = Long.MIN_VALUE;
        java.util.TreeMap<Long, Integer> byPoll = new java.util.TreeMap<>();
        for (LiveViewRecording.ShownMove m : rec.moves) {
            MoveLog.Entry e = log.byKey.get(m.key());
            if (e == null) {
                unmatched.add(m.key());
            } else if (m.timeMillis < rec.firstRenderMs) {
                beforePage++;
            } else if (rec.pauseStartMs > 0 && m.shownAtMs >= rec.pauseStartMs && m.timeMillis <= rec.pauseEndMs) {
                duringPause++;
            } else {
                lags.add(m.shownAtMs - e.timeMs);
                worstOverPoll = Math.max(worstOverPoll, m.shownAtMs - e.timeMs - m.pollMs);
                byPoll.merge(m.pollMs, 1, Integer::sum);
            }
        }
        lagsMs = lags.stream().mapToLong(Long::longValue).sorted().toArray();
        if (byPoll.size() > 1 || !byPoll.containsKey(0L)) {
            StringBuilder sb = new StringBuilder();
            byPoll.forEach((poll, n) -> sb.append(sb.length() == 0 ? "" : ", ").append(n).append(" with the page polling every ")
                    .append(poll).append(" ms"));
            pollSplit = sb.toString();
        }
        add(unmatched.isEmpty(), "every move the page showed is in moves.csv"
                + (unmatched.isEmpty() ? " (" + rec.moves.size() + ")" : "; not found: " + unmatched));
        long max = lagsMs.length == 0 ? -1 : lagsMs[lagsMs.length - 1];
        long min = lagsMs.length == 0 ? -1 : lagsMs[0];
        add(lagsMs.length > 0 && worstOverPoll <= MAX_LATE_MS && min >= 0, "TE moves shown within the page's "
                + "poll interval + " + MAX_LATE_MS + " ms of the move (moves.csv time_ms to first drawn): "
                + lagSummary());
        if (lagsMs.length > 0) {
            target(max <= TARGET_LAG_MS, "TE moves shown within " + TARGET_LAG_MS + " ms of the move (the target; "
                    + "max " + max + " ms)");
        }
    }

    /** "n moves, median x ms, max y ms" or why none were measured. */
    String lagSummary() {
        if (lagsMs.length == 0) {
            return "no move was made while the page watched";
        }
        return String.format(Locale.ROOT, "%d moves, min %d ms, median %d ms, max %d ms", lagsMs.length, lagsMs[0],
                             lagsMs[lagsMs.length / 2], lagsMs[lagsMs.length - 1])
                + (pollSplit.isEmpty() ? "" : "; " + pollSplit)
                + (beforePage + duringPause > 0 ? " (not counted: " + beforePage + " made before the page drew its "
                + "first run, " + duringPause + " made while it was paused for the screenshot)" : "");
    }

    /** Whether the recording exists and passed every check. */
    boolean passed() {
        return rec.recorded() && checks.stream().allMatch(c -> c.ok || c.target);
    }

    /**
     * One line per check, "ok - ...", "FAIL - ..." or, for a target missed, "target not met - ...";
     * or one "skip - reason" line.
     */
    String text() {
        if (!rec.recorded()) {
            return ("skipped".equals(rec.status) ? "skip - " : "FAIL - ") + "live view not recorded: "
                    + rec.reason + "\n";
        }
        StringBuilder sb = new StringBuilder();
        for (Check c : checks) {
            sb.append(c.ok ? "ok - " : c.target ? "target not met - " : "FAIL - ").append(c.text).append('\n');
        }
        return sb.toString();
    }
}

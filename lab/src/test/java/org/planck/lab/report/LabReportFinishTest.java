package org.planck.lab.report;

import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** The lab report's live view section, its checks against moves.csv, and index.html. */
public class LabReportFinishTest {
    private static final String MOVES_HEADER =
            "workload,mode,time_ms,src,dst,proto,sport,dport,congested_port,from_path,to_path,decision_latency_us\n";
    private static final long T0 = 1_795_638_060_000L;

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();
    private Path dir;

    @Before
    public void setUp() throws IOException {
        dir = tmp.newFolder("lab-1").toPath();
        Files.writeString(dir.resolve("report.md"), "# Lab\n\nresults\n");
        Files.writeString(dir.resolve("moves.csv"), MOVES_HEADER
                + "stride8,PlanckTE," + (T0 + 1000) + ",10.0.0.9,10.0.0.1,6,10777,5001,of:0000000000000003/1,0,3,3338\n"
                + "stride8,PlanckTE," + (T0 + 1100) + ",10.0.0.2,10.0.0.10,6,10770,5001,of:0000000000000004/3,2,0,2012\n"
                + "bijection,PlanckTE," + (T0 + 5000) + ",10.0.0.3,10.0.0.7,6,10790,5001,,1,0,900\n"
                + "stride8,Poll-100ms," + (T0 - 3000) + ",10.0.0.4,10.0.0.12,6,10760,5001,of:0000000000000005/3,1,0,4000\n");
        Files.createDirectories(dir.resolve("fabric"));
        Files.writeString(dir.resolve("fabric/fabric-1.log"), "fabric log\n");
        Files.writeString(dir.resolve("throughput.csv"), "workload,mode\n");
        Files.write(dir.resolve("lab-live-view.png"), new byte[]{(byte) 0x89, 'P', 'N', 'G'});
    }

    private static String move(String flow, long time, long shown) {
        return move(flow, time, shown, 500);
    }

    private static String move(String flow, long time, long shown, long pollMs) {
        return "{\"flow\": \"" + flow + "\", \"timeMillis\": " + time + ", \"shownAtMs\": " + shown
                + ", \"mode\": \"PLANCK\", \"pollMs\": " + pollMs + "}";
    }

    /** A recording as lab-live-view.js writes it: first drawing at T0, paused T0+1150..T0+1400. */
    private void recording(String mode, int linksLoaded, String... moves) throws IOException {
        Files.writeString(dir.resolve(LiveViewRecording.FILE), "{\"url\": \"http://127.0.0.1:8182/\", \"pollMs\": 50,"
                + " \"followPollMs\": 500, \"status\": \"recorded\", \"reason\": \"\", \"screenshot\": \"lab-live-view.png\","
                + " \"snapshot\": {\"takenAtMs\": " + (T0 + 1150) + ", \"mode\": \"" + mode + "\", \"topologyLinks\": 32,"
                + " \"linksDrawn\": 32, \"linksLoaded\": " + linksLoaded + ", \"maxLoadBps\": 1000000000,"
                + " \"congestedLinks\": 1, \"switches\": 20, \"hosts\": 16, \"movesListed\": 2,"
                + " \"firstMove\": \"10.0.0.2:10770->10.0.0.10:5001/6: path 2 → 0\","
                + " \"firstMoveFlow\": \"10.0.0.2:10770->10.0.0.10:5001/6\", \"firstMoveTime\": " + (T0 + 1100) + "},"
                + " \"firstRenderMs\": " + T0 + ", \"pauseStartMs\": " + (T0 + 1150) + ", \"pauseEndMs\": " + (T0 + 1400)
                + ", \"pageErrors\": [], \"moves\": [" + String.join(",", moves) + "]}");
    }

    private String checks() throws IOException {
        return Files.readString(dir.resolve(LabReportFinish.CHECKS));
    }

    @Test
    public void movesShownWithinASecondPassAndTheReportEmbedsTheScreenshot() throws IOException {
        recording("PLANCK", 12,
                  move("10.0.0.9:10777->10.0.0.1:5001/6", T0 + 1000, T0 + 1060, 50),
                  move("10.0.0.2:10770->10.0.0.10:5001/6", T0 + 1100, T0 + 1140, 50),
                  move("10.0.0.3:10790->10.0.0.7:5001/6", T0 + 5000, T0 + 5900),
                  move("10.0.0.4:10760->10.0.0.12:5001/6", T0 - 3000, T0));
        LiveViewChecks c = LabReportFinish.finish(dir);
        assertTrue(checks(), c.passed());
        assertFalse(checks().contains("FAIL"));
        assertTrue(checks(), checks().contains("3 moves, min 40 ms, median 60 ms, max 900 ms; 2 with the page "
                + "polling every 50 ms, 1 with the page polling every 500 ms (not counted: 1 made before the page drew its first run, 0 made while it was paused"));
        assertEquals("stride8 / PlanckTE", c.snapshotRun);
        String md = Files.readString(dir.resolve("report.md"));
        assertTrue(md.startsWith("# Lab\n\nresults\n"));
        assertTrue(md, md.contains("![live fabric view during a PlanckTE run](lab-live-view.png)"));
        assertTrue(md, md.contains("<http://127.0.0.1:8182/>"));
        assertTrue(md, md.contains("the page polling every 50 ms, and took this screenshot"));
        assertTrue(md, md.contains("After the screenshot the page went back to polling every 500 ms"));
        assertTrue(md, md.contains("[index.html](index.html)"));
    }

    @Test
    public void theRunIsNamedAsThePageNamedIt() throws IOException {
        recording("PLANCK", 12, move("10.0.0.9:10777->10.0.0.1:5001/6", T0 + 1000, T0 + 1060));
        Path f = dir.resolve(LiveViewRecording.FILE);
        Files.writeString(f, Files.readString(f).replace("\"mode\": \"PLANCK\", \"topologyLinks\"",
                "\"mode\": \"PLANCK\", \"run\": \"stride(8) / PlanckTE\", \"topologyLinks\""));
        LiveViewChecks c = LabReportFinish.finish(dir);
        assertEquals("stride(8) / PlanckTE", c.snapshotRun);
        assertTrue(Files.readString(dir.resolve("report.md")).contains("a move listed (stride(8) / PlanckTE):"));
    }

    @Test
    public void aMoveNotInTheLogFails() throws IOException {
        recording("PLANCK", 12,
                  move("10.0.0.9:10777->10.0.0.1:5001/6", T0 + 1000, T0 + 1060),
                  move("10.0.0.66:1->10.0.0.7:5001/6", T0 + 5000, T0 + 5010));
        LiveViewChecks c = LabReportFinish.finish(dir);
        assertFalse(c.passed());
        assertTrue(checks(), checks().contains("FAIL - every move the page showed is in moves.csv; not found: "
                + "[10.0.0.66:1->10.0.0.7:5001/6@" + (T0 + 5000) + "]"));
    }

    @Test
    public void aMoveLaterThanASecondMissesTheTargetButPasses() throws IOException {
        recording("PLANCK", 12,
                  move("10.0.0.9:10777->10.0.0.1:5001/6", T0 + 1000, T0 + 1060),
                  move("10.0.0.3:10790->10.0.0.7:5001/6", T0 + 5000, T0 + 6001));
        LiveViewChecks c = LabReportFinish.finish(dir);
        assertTrue(checks(), c.passed());
        assertTrue(checks(), checks().contains("ok - TE moves shown within the page's poll interval + 2000 ms of the "
                + "move (moves.csv time_ms to first drawn): 2 moves, min 60 ms, median 1001 ms, max 1001 ms; 2 with "
                + "the page polling every 500 ms"));
        assertTrue(checks(), checks().contains("target not met - TE moves shown within 1000 ms of the move (the "
                + "target; max 1001 ms)"));
    }

    @Test
    public void aMoveWithinASecondMeetsTheTarget() throws IOException {
        recording("PLANCK", 12, move("10.0.0.3:10790->10.0.0.7:5001/6", T0 + 5000, T0 + 5999));
        LiveViewChecks c = LabReportFinish.finish(dir);
        assertTrue(checks(), c.passed());
        assertTrue(checks(), checks().contains("ok - TE moves shown within 1000 ms of the move (the target; max 999 ms)"));
    }

    @Test
    public void aPageThatStopsUpdatingFails() throws IOException {
        // 2,501 ms after the move with the page polling every 500 ms: 2,001 ms over its interval.
        recording("PLANCK", 12,
                  move("10.0.0.9:10777->10.0.0.1:5001/6", T0 + 1000, T0 + 1060),
                  move("10.0.0.3:10790->10.0.0.7:5001/6", T0 + 5000, T0 + 7501));
        LiveViewChecks c = LabReportFinish.finish(dir);
        assertFalse(c.passed());
        assertTrue(checks(), checks().contains("FAIL - TE moves shown within the page's poll interval + 2000 ms of the "
                + "move (moves.csv time_ms to first drawn): 2 moves, min 60 ms, median 2501 ms, max 2501 ms"));
    }

    @Test
    public void movesHeldBackByTheScreenshotPauseAreNotCounted() throws IOException {
        recording("PLANCK", 12,
                  move("10.0.0.9:10777->10.0.0.1:5001/6", T0 + 1000, T0 + 1060),
                  move("10.0.0.2:10770->10.0.0.10:5001/6", T0 + 1100, T0 + 1450));
        LiveViewChecks c = LabReportFinish.finish(dir);
        assertTrue(checks(), c.passed());
        assertEquals(1, c.lagsMs.length);
        assertEquals(1, c.duringPause);
    }

    @Test
    public void theScreenshotMustShowAPlanckRunWithLoadedLinks() throws IOException {
        recording("POLL", 0, move("10.0.0.9:10777->10.0.0.1:5001/6", T0 + 1000, T0 + 1060));
        LabReportFinish.finish(dir);
        assertTrue(checks(), checks().contains("FAIL - the screenshot shows a PlanckTE run while its flows move (mode POLL"));
        assertTrue(checks(), checks().contains("FAIL - links with non-zero load: 0"));
    }

    @Test
    public void noMovesSeenFails() throws IOException {
        recording("PLANCK", 12);
        assertFalse(LabReportFinish.finish(dir).passed());
        assertTrue(checks(), checks().contains("FAIL - TE moves shown within the page's poll interval + 2000 ms of "
                + "the move (moves.csv time_ms to first drawn): no move was made while the page watched"));
    }

    @Test
    public void withoutChromiumTheReportSaysSoInOneLine() throws IOException {
        Files.delete(dir.resolve("lab-live-view.png"));
        Files.writeString(dir.resolve(LiveViewRecording.FILE), "{\"status\": \"skipped\", \"reason\": \"chromium is "
                + "not installed (scripts/deps.sh installs it)\", \"url\": \"http://127.0.0.1:8182/\"}\n");
        LiveViewChecks c = LabReportFinish.finish(dir);
        assertFalse(c.passed());
        assertEquals("skip - live view not recorded: chromium is not installed (scripts/deps.sh installs it)\n", checks());
        String md = Files.readString(dir.resolve("report.md"));
        assertTrue(md, md.contains("\nNot recorded in a browser: chromium is not installed (scripts/deps.sh installs it).\n"));
        assertFalse(md, md.contains("!["));
        assertTrue(Files.isRegularFile(dir.resolve(ReportIndex.FILE)));
    }

    @Test
    public void finishingTwiceLeavesOneSection() throws IOException {
        recording("PLANCK", 12, move("10.0.0.9:10777->10.0.0.1:5001/6", T0 + 1000, T0 + 1060));
        LabReportFinish.finish(dir);
        LabReportFinish.finish(dir);
        String md = Files.readString(dir.resolve("report.md"));
        assertEquals(md.indexOf("## Live fabric view"), md.lastIndexOf("## Live fabric view"));
        assertTrue(md.startsWith("# Lab\n\nresults\n"));
    }

    @Test
    public void aMalformedRecordingIsRefusedAndTheReportIsLeftAsItWas() throws IOException {
        Files.writeString(dir.resolve(LiveViewRecording.FILE), "{\"status\": ");
        try {
            LabReportFinish.finish(dir);
            fail("a truncated live-view.json was accepted");
        } catch (IOException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("live-view.json: not JSON"));
        }
        assertEquals("# Lab\n\nresults\n", Files.readString(dir.resolve("report.md")));
        Files.writeString(dir.resolve(LiveViewRecording.FILE), "[1, 2]");
        try {
            LabReportFinish.finish(dir);
            fail("a JSON array was accepted");
        } catch (IOException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("not a live view recording"));
        }
    }

    @Test
    public void aMoveLogWithoutItsColumnsIsRefused() throws IOException {
        recording("PLANCK", 12);
        Files.writeString(dir.resolve("moves.csv"), "workload,mode,when\nstride8,PlanckTE,1\n");
        try {
            LabReportFinish.finish(dir);
            fail("moves.csv without time_ms was accepted");
        } catch (IOException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("no column time_ms"));
        }
        Files.writeString(dir.resolve("moves.csv"), MOVES_HEADER + "stride8,PlanckTE,soon,a,b,6,1,2,,0,1,5\n");
        try {
            LabReportFinish.finish(dir);
            fail("a non-numeric time was accepted");
        } catch (IOException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("time_ms is not a number: soon"));
        }
    }

    @Test
    public void theIndexLinksEveryFileGroupedByKind() throws IOException {
        recording("PLANCK", 12, move("10.0.0.9:10777->10.0.0.1:5001/6", T0 + 1000, T0 + 1060));
        Files.writeString(dir.resolve("odd name <1>.txt"), "x");
        LabReportFinish.finish(dir);
        String html = Files.readString(dir.resolve(ReportIndex.FILE));
        List<String> expected = List.of("report.md", "moves.csv", "throughput.csv", "lab-live-view.png",
                                        "live-view.json", "live-view-checks.txt", "fabric/fabric-1.log");
        for (String f : expected) {
            assertTrue(f + " linked", html.contains("<a href=\"" + f + "\">"));
        }
        assertTrue(html, html.contains("<a href=\"odd%20name%20%3C1%3E.txt\">odd name &lt;1&gt;.txt</a>"));
        assertTrue(html.contains("<img src=\"lab-live-view.png\""));
        assertTrue(html.contains("href=\"http://127.0.0.1:8182/\""));
        assertFalse("the index does not list itself", html.contains("href=\"index.html\""));
        assertTrue(html.indexOf("<h2>Live fabric view</h2>") < html.indexOf("lab-live-view.png"));
        assertEquals("Tables", ReportIndex.group("flows.csv"));
        assertEquals("Live fabric view", ReportIndex.group("live-view.log"));
        assertEquals("Logs", ReportIndex.group("collector.log"));
        assertEquals("fabric/", ReportIndex.group("fabric/fabric-2.toml"));
    }
}

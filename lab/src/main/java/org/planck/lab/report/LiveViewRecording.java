package org.planck.lab.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What headless Chromium saw of the live fabric view during a lab run
 * ({@code live-view.json}, written by {@code src/test/browser/lab-live-view.js}): the DOM at
 * the moment of the screenshot and when each TE move first appeared on the page.
 */
public final class LiveViewRecording {
    /** File name inside the report directory. */
    public static final String FILE = "live-view.json";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    final String status;
    final String reason;
    final String url;
    final long pollMs;
    final long followPollMs;
    final String screenshot;
    final Snapshot snapshot;
    final long firstRenderMs;
    final long pauseStartMs;
    final long pauseEndMs;
    final List<ShownMove> moves;
    final List<String> pageErrors;

    private LiveViewRecording(JsonNode j) {
        status = j.path("status").asText();
        reason = j.path("reason").asText("");
        url = j.path("url").asText("");
        pollMs = j.path("pollMs").asLong();
        followPollMs = j.path("followPollMs").asLong(pollMs);
        screenshot = j.path("screenshot").isTextual() ? j.path("screenshot").asText() : null;
        snapshot = j.path("snapshot").isObject() ? new Snapshot(j.path("snapshot")) : null;
        firstRenderMs = j.path("firstRenderMs").asLong();
        pauseStartMs = j.path("pauseStartMs").asLong();
        pauseEndMs = j.path("pauseEndMs").asLong();
        List<ShownMove> ms = new ArrayList<>();
        j.path("moves").forEach(m -> ms.add(new ShownMove(m)));
        moves = List.copyOf(ms);
        List<String> errors = new ArrayList<>();
        j.path("pageErrors").forEach(e -> errors.add(e.asText()));
        pageErrors = List.copyOf(errors);
    }

    /** The DOM when the screenshot was taken. */
    static final class Snapshot {
        final String mode;
        final String run;
        final int topologyLinks;
        final int linksDrawn;
        final int linksLoaded;
        final long maxLoadBps;
        final int congestedLinks;
        final int switches;
        final int hosts;
        final int movesListed;
        final String firstMove;
        final String firstMoveKey;
        final long takenAtMs;

        Snapshot(JsonNode s) {
            mode = s.path("mode").asText("");
            run = s.path("run").asText("");
            topologyLinks = s.path("topologyLinks").asInt();
            linksDrawn = s.path("linksDrawn").asInt();
            linksLoaded = s.path("linksLoaded").asInt();
            maxLoadBps = s.path("maxLoadBps").asLong();
            congestedLinks = s.path("congestedLinks").asInt();
            switches = s.path("switches").asInt();
            hosts = s.path("hosts").asInt();
            movesListed = s.path("movesListed").asInt();
            firstMove = s.path("firstMove").asText("");
            firstMoveKey = s.path("firstMoveFlow").asText("") + "@" + s.path("firstMoveTime").asLong();
            takenAtMs = s.path("takenAtMs").asLong();
        }
    }

    /**
     * A move as the page showed it: flow "src:sport->dst:dport/proto", its time, when it
     * appeared and the page's poll interval then.
     */
    static final class ShownMove {
        final String flow;
        final long timeMillis;
        final long shownAtMs;
        final String mode;
        final long pollMs;

        ShownMove(JsonNode m) {
            flow = m.path("flow").asText();
            timeMillis = m.path("timeMillis").asLong();
            shownAtMs = m.path("shownAtMs").asLong();
            mode = m.path("mode").asText("");
            pollMs = m.path("pollMs").asLong();
        }

        String key() {
            return flow + "@" + timeMillis;
        }
    }

    /**
     * Reads a recording.
     *
     * @param file live-view.json
     * @return the recording
     * @throws IOException if unreadable or not the recorder's JSON
     */
    public static LiveViewRecording read(Path file) throws IOException {
        JsonNode j;
        try {
            j = MAPPER.readTree(Files.readString(file));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IOException(file + ": not JSON: " + e.getOriginalMessage(), e);
        }
        if (j == null || !j.isObject() || !j.path("status").isTextual()) {
            throw new IOException(file + ": not a live view recording (no status)");
        }
        return new LiveViewRecording(j);
    }

    /** Whether the browser recorded the page (it may still have failed a check). */
    boolean recorded() {
        return "recorded".equals(status);
    }
}

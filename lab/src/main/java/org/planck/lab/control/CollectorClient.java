package org.planck.lab.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.planck.api.CollectorForwardingMap;
import org.planck.api.ForwardingMapCodec;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Pushes the forwarding map and detection config to a collector's control endpoint
 * (docs/protocol/forwarding-map-v1.md).
 */
public final class CollectorClient {
    private static final long CONNECT_PATIENCE_MS = 15_000;

    private final URI base;
    /** Basic-auth header value the control endpoint requires, if any. */
    private final Optional<String> authorization;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper mapper = new ObjectMapper();

    /**
     * A client.
     *
     * @param base control endpoint, e.g. {@code http://127.0.0.1:7070}
     */
    public CollectorClient(URI base) {
        this.base = checkNotNull(base, "base");
        this.authorization = Optional.empty();
    }

    /**
     * A client of a control endpoint that requires credentials ({@code [control]} username and
     * password in the collector's config), sent as HTTP basic auth on every request.
     *
     * @param base     control endpoint
     * @param username control user
     * @param password its password
     */
    public CollectorClient(URI base, String username, String password) {
        this.base = checkNotNull(base, "base");
        String pair = checkNotNull(username, "username") + ":" + checkNotNull(password, "password");
        this.authorization = Optional.of("Basic "
                + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Pushes a forwarding map.
     *
     * @param map the map
     * @return false if the collector already holds a newer generation (409)
     * @throws IllegalStateException if the collector rejects the map or cannot be reached
     */
    public boolean pushForwarding(CollectorForwardingMap map) {
        int status = put("/v1/forwarding", ForwardingMapCodec.encode(map, mapper));
        return status != 409;
    }

    /**
     * Pushes the detection config.
     *
     * @param settings thresholds and report interval
     */
    public void pushConfig(TeSettings settings) {
        ObjectNode body = mapper.createObjectNode();
        body.put("version", 1);
        body.put("congestionThresholdPct", settings.thresholdPct());
        body.put("hysteresisPct", settings.hysteresisPct());
        body.put("flowReportIntervalMs", settings.flowReportIntervalMs());
        put("/v1/config", body);
    }

    private int put(String path, JsonNode body) {
        // The collector may still be starting: connection failures are retried for a while.
        long deadline = System.currentTimeMillis() + CONNECT_PATIENCE_MS;
        while (true) {
            try {
                return putOnce(path, body);
            } catch (CollectorUnreachable e) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException(e.getMessage(), e);
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", ie);
                }
            }
        }
    }

    /** The collector did not answer at all. */
    private static final class CollectorUnreachable extends Exception {
        CollectorUnreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private int putOnce(String path, JsonNode body) throws CollectorUnreachable {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(5))
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofByteArray(mapper.writeValueAsBytes(body)));
            authorization.ifPresent(a -> b.header("Authorization", a));
            HttpRequest req = b.build();
            HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 == 2 || r.statusCode() == 409) {
                return r.statusCode();
            }
            throw new IllegalStateException("collector refused PUT " + path + ": " + r.statusCode() + " " + r.body());
        } catch (IOException e) {
            throw new CollectorUnreachable("collector unreachable at " + base + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}

package org.planck.app.collector;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.planck.api.CollectorForwardingMap;
import org.planck.api.CollectorPushStatus;
import org.planck.api.ForwardingMapCodec;
import org.planck.api.config.CollectorConfig;
import org.planck.api.config.PlanckSettings;
import org.slf4j.Logger;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Delivers forwarding maps and config to collectors' control endpoints
 * (docs/protocol/forwarding-map-v1.md) asynchronously.
 *
 * <p>Only the newest map and the newest config matter, so per collector there is at most
 * one delivery in flight and one pending of each kind: a newer submission replaces the
 * pending one (counted as superseded). The work is therefore bounded by the number of
 * configured collectors. Failures (connection errors, timeouts, 5xx) are retried with
 * exponential backoff up to a fixed number of attempts, then abandoned; 4xx answers
 * (400 malformed, 409 stale generation) are counted as rejected and not retried.</p>
 */
public final class CollectorPusher {

    /** Path of the forwarding-map endpoint on a collector. */
    public static final String FORWARDING_PATH = "/v1/forwarding";
    /** Path of the config endpoint on a collector. */
    public static final String CONFIG_PATH = "/v1/config";

    private enum Kind {
        CONFIG(CONFIG_PATH), MAP(FORWARDING_PATH);

        private final String path;

        Kind(String path) {
            this.path = path;
        }
    }

    private final Logger log = getLogger(getClass());
    private final ObjectMapper mapper = new ObjectMapper();
    private final HttpClient client;
    private final ScheduledExecutorService scheduler;
    private final Duration requestTimeout;
    private final int maxAttempts;
    private final long initialBackoffMs;
    private final long maxBackoffMs;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();

    /**
     * Creates a pusher.
     *
     * @param client           HTTP client
     * @param scheduler        runs deliveries and retries
     * @param requestTimeout   timeout of one request
     * @param maxAttempts      attempts per delivery before it is abandoned, >= 1
     * @param initialBackoffMs delay before the first retry, doubled per retry
     * @param maxBackoffMs     longest delay between retries
     */
    public CollectorPusher(HttpClient client, ScheduledExecutorService scheduler, Duration requestTimeout,
                           int maxAttempts, long initialBackoffMs, long maxBackoffMs) {
        this.client = client;
        this.scheduler = scheduler;
        this.requestTimeout = requestTimeout;
        this.maxAttempts = Math.max(1, maxAttempts);
        this.initialBackoffMs = initialBackoffMs;
        this.maxBackoffMs = maxBackoffMs;
    }

    /**
     * Queues a forwarding map for delivery, replacing any map still pending for the collector.
     *
     * @param collector the collector
     * @param map       its map
     */
    public void pushMap(CollectorConfig collector, CollectorForwardingMap map) {
        submit(collector, new Delivery(Kind.MAP, ForwardingMapCodec.encode(map, mapper).toString(),
                map.generation()));
    }

    /**
     * Queues the collector config (thresholds, report interval) for delivery.
     *
     * @param collector the collector
     * @param settings  the configuration in force
     */
    public void pushConfig(CollectorConfig collector, PlanckSettings settings) {
        submit(collector, new Delivery(Kind.CONFIG, collectorConfigJson(settings).toString(), -1));
    }

    /**
     * The config body pushed to collectors.
     *
     * @param settings configuration in force
     * @return JSON object per docs/protocol/forwarding-map-v1.md
     */
    public ObjectNode collectorConfigJson(PlanckSettings settings) {
        ObjectNode n = mapper.createObjectNode();
        n.put("version", CollectorForwardingMap.VERSION);
        n.put("congestionThresholdPct", settings.congestionThresholdPct());
        n.put("hysteresisPct", settings.hysteresisPct());
        n.put("flowReportIntervalMs", settings.flowReportIntervalMs());
        return n;
    }

    /**
     * Drops a collector that is no longer configured; a delivery in flight completes but is
     * not retried.
     *
     * @param collectorId collector id
     */
    public void forget(String collectorId) {
        Channel c = channels.remove(collectorId);
        if (c != null) {
            synchronized (c) {
                c.closed = true;
                c.pendingMap = null;
                c.pendingConfig = null;
            }
        }
    }

    /**
     * Delivery statistics of a collector.
     *
     * @param collectorId collector id
     * @return status, or empty if nothing was ever pushed to it
     */
    public Optional<CollectorPushStatus> status(String collectorId) {
        Channel c = channels.get(collectorId);
        if (c == null) {
            return Optional.empty();
        }
        synchronized (c) {
            return Optional.of(new CollectorPushStatus(collectorId, c.deliveredGeneration,
                    c.pendingMap == null ? -1 : c.pendingMap.generation, c.delivered, c.failedAttempts,
                    c.rejected, c.superseded, c.abandoned, c.lastError));
        }
    }

    private void submit(CollectorConfig collector, Delivery d) {
        Channel c = channels.computeIfAbsent(collector.id(), id -> new Channel());
        boolean start;
        synchronized (c) {
            c.target = collector;
            Delivery previous = d.kind == Kind.MAP ? c.pendingMap : c.pendingConfig;
            if (previous != null) {
                c.superseded++;
            }
            if (d.kind == Kind.MAP) {
                c.pendingMap = d;
            } else {
                c.pendingConfig = d;
            }
            start = !c.busy;
            c.busy = true;
        }
        if (start) {
            scheduler.execute(() -> deliverNext(c));
        }
    }

    private void deliverNext(Channel c) {
        Delivery d;
        CollectorConfig target;
        synchronized (c) {
            // Config first: a collector interprets the map against its thresholds.
            d = c.pendingConfig != null ? c.pendingConfig : c.pendingMap;
            if (d == null || c.closed) {
                c.busy = false;
                return;
            }
            if (d.kind == Kind.CONFIG) {
                c.pendingConfig = null;
            } else {
                c.pendingMap = null;
            }
            target = c.target;
        }
        HttpRequest request;
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(uri(target, d.kind.path))
                    .timeout(requestTimeout)
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(d.body));
            // The collector's control endpoint requires these when it listens beyond loopback.
            target.controlAuthorization().ifPresent(a -> b.header("Authorization", a));
            request = b.build();
        } catch (IllegalArgumentException e) {
            synchronized (c) {
                c.abandoned++;
                c.lastError = "bad collector URI: " + e.getMessage();
            }
            deliverNext(c);
            return;
        }
        client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .whenComplete((response, error) -> completed(c, target, d, response, error));
    }

    private void completed(Channel c, CollectorConfig target, Delivery d, HttpResponse<String> response,
                           Throwable error) {
        long retryInMs = -1;
        synchronized (c) {
            int status = response == null ? -1 : response.statusCode();
            if (error == null && status >= 200 && status < 300) {
                c.delivered++;
                if (d.kind == Kind.MAP) {
                    c.deliveredGeneration = Math.max(c.deliveredGeneration, d.generation);
                }
            } else if (error == null && status >= 400 && status < 500) {
                c.rejected++;
                c.lastError = d.kind.path + " answered " + status + ": " + abbreviate(response.body());
                log.warn("Collector {} rejected {}: {}", target.id(), d.kind.path, c.lastError);
            } else {
                c.failedAttempts++;
                c.lastError = d.kind.path + (error != null ? " failed: " + error : " answered " + status);
                boolean newer = d.kind == Kind.MAP ? c.pendingMap != null : c.pendingConfig != null;
                if (newer || c.closed) {
                    // A newer delivery of the same kind replaces this one; no point retrying.
                    c.superseded++;
                } else if (d.attempt + 1 >= maxAttempts) {
                    c.abandoned++;
                    log.warn("Giving up {} to collector {} after {} attempts: {}", d.kind.path, target.id(),
                            maxAttempts, c.lastError);
                } else {
                    Delivery retry = d.nextAttempt();
                    if (d.kind == Kind.MAP) {
                        c.pendingMap = retry;
                    } else {
                        c.pendingConfig = retry;
                    }
                    retryInMs = Math.min(maxBackoffMs, initialBackoffMs << Math.min(20, d.attempt));
                }
            }
        }
        if (retryInMs >= 0) {
            scheduler.schedule(() -> deliverNext(c), retryInMs, TimeUnit.MILLISECONDS);
        } else {
            scheduler.execute(() -> deliverNext(c));
        }
    }

    private static URI uri(CollectorConfig target, String path) {
        String host = target.address().isIp6() ? "[" + target.address() + "]" : target.address().toString();
        return URI.create("http://" + host + ":" + target.controlPort() + path);
    }

    private static String abbreviate(String s) {
        if (s == null) {
            return "";
        }
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }

    private static final class Delivery {
        private final Kind kind;
        private final String body;
        private final long generation;
        private final int attempt;

        private Delivery(Kind kind, String body, long generation) {
            this(kind, body, generation, 0);
        }

        private Delivery(Kind kind, String body, long generation, int attempt) {
            this.kind = kind;
            this.body = body;
            this.generation = generation;
            this.attempt = attempt;
        }

        private Delivery nextAttempt() {
            return new Delivery(kind, body, generation, attempt + 1);
        }
    }

    /** Per-collector delivery state; guarded by its own monitor. */
    private static final class Channel {
        private CollectorConfig target;
        private Delivery pendingMap;
        private Delivery pendingConfig;
        private boolean busy;
        private boolean closed;
        private long deliveredGeneration = -1;
        private long delivered;
        private long failedAttempts;
        private long rejected;
        private long superseded;
        private long abandoned;
        private String lastError = "";
    }
}

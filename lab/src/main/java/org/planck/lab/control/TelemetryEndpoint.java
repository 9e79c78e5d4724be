package org.planck.lab.control;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.planck.api.inband.ConformanceFilter;
import org.planck.api.inband.FlowConformance;
import org.planck.api.inband.PintJson;
import com.sun.net.httpserver.BasicAuthenticator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.planck.api.telemetry.IngestResult;
import org.planck.api.telemetry.MalformedBatchException;
import org.planck.api.telemetry.TelemetryBatch;
import org.planck.api.telemetry.TelemetryBatchCodec;
import org.planck.api.telemetry.TelemetryJson;
import org.planck.lab.http.NoDelayHttpServer;
import org.planck.lab.sched.LoopThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The lab controller's telemetry endpoint: {@code POST /onos/planck/v1/telemetry/events}, HTTP
 * basic auth with the lab's own user, decoded and validated by the same
 * {@link TelemetryBatchCodec} as the ONOS REST resource. A malformed batch gets 400 with
 * {@code {"code":400,"message":...}} and reaches no sink; a valid one is applied whole and
 * answered with {@code {"accepted","unknownDevice","unknownPort"}}.
 */
public final class TelemetryEndpoint implements AutoCloseable {
    /** Path of the endpoint, as on ONOS. */
    public static final String PATH = "/onos/planck/v1/telemetry/events";
    /** The running PlanckTE controller's PINT path-conformance view, as the app serves it. */
    public static final String PINT_FLOWS_PATH = "/onos/planck/v1/pint/flows";

    private static final Logger log = LoggerFactory.getLogger(TelemetryEndpoint.class);

    private final HttpServer server;
    private final ExecutorService executor;
    private final TelemetryBatchCodec codec = new TelemetryBatchCodec();
    private final ObjectMapper mapper = new ObjectMapper();
    private final AtomicReference<TelemetrySink> sink = new AtomicReference<>();
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong unavailable = new AtomicLong();

    private TelemetryEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Starts the endpoint.
     *
     * @param address  listen address (port 0 picks a free port)
     * @param user     basic-auth user
     * @param password basic-auth password
     * @return running endpoint
     * @throws IOException if the address cannot be bound
     */
    public static TelemetryEndpoint start(InetSocketAddress address, String user, String password)
            throws IOException {
        checkNotNull(user, "user");
        checkNotNull(password, "password");
        HttpServer server = NoDelayHttpServer.create(address, 64);
        // Two threads: a collector sends its congestion notices on a connection of their own,
        // and a notice must not queue behind the decoding of a report batch (the sink applies
        // batches one at a time under its own lock).
        // Started now, so both run at the loop's priority before the first batch: a thread started
        // on demand begins at normal priority (its creator's SCHED_RESET_ON_FORK), and at the start
        // of a run, with the JIT compiling, it waited tens of ms for a core before it could
        // promote itself. Bounded: a batch beyond 256 waiting is read by the HTTP dispatcher.
        ThreadPoolExecutor executor = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(256), LoopThreads.factory("lab-telemetry"),
                new ThreadPoolExecutor.CallerRunsPolicy());
        executor.prestartAllCoreThreads();
        TelemetryEndpoint endpoint = new TelemetryEndpoint(server, executor);
        BasicAuthenticator auth = new BasicAuthenticator("planck-lab") {
            @Override
            public boolean checkCredentials(String u, String p) {
                return constantTimeEquals(user, u) & constantTimeEquals(password, p);
            }
        };
        server.createContext(PATH, endpoint::handle).setAuthenticator(auth);
        server.createContext(PINT_FLOWS_PATH, endpoint::handlePintFlows).setAuthenticator(auth);
        server.setExecutor(executor);
        server.start();
        return endpoint;
    }

    private static boolean constantTimeEquals(String expected, String given) {
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8),
                                     (given == null ? "" : given).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Where valid batches go from now on (null: between runs, valid batches are acknowledged
     * with nothing applied).
     *
     * @param next sink, or null
     */
    public void attach(TelemetrySink next) {
        sink.set(next);
    }

    /**
     * The bound port.
     *
     * @return port
     */
    public int port() {
        return server.getAddress().getPort();
    }

    public long batches() {
        return batches.get();
    }

    public long rejected() {
        return rejected.get();
    }

    /**
     * Valid batches that arrived while no run was attached.
     *
     * @return count
     */
    public long unavailable() {
        return unavailable.get();
    }

    private void handle(HttpExchange ex) throws IOException {
        long receiptUs = LabController.nowUs();
        try {
            if (!PATH.equals(ex.getRequestURI().getPath())) {
                error(ex, 404, "no such resource");
                return;
            }
            if (!"POST".equals(ex.getRequestMethod())) {
                ex.getResponseHeaders().add("Allow", "POST");
                error(ex, 405, "only POST is allowed");
                return;
            }
            String type = ex.getRequestHeaders().getFirst("Content-Type");
            if (type == null || !type.toLowerCase().startsWith("application/json")) {
                error(ex, 415, "Content-Type must be application/json");
                return;
            }
            TelemetryBatch batch;
            try (InputStream in = ex.getRequestBody()) {
                batch = codec.decode(in);
            } catch (MalformedBatchException e) {
                rejected.incrementAndGet();
                error(ex, 400, e.getMessage());
                return;
            }
            TelemetrySink s = sink.get();
            if (s == null) {
                // Between runs: a 5xx would push the collector into back-off and delay the next
                // run's events, so the batch is acknowledged with nothing applied.
                unavailable.incrementAndGet();
                respond(ex, 200, TelemetryJson.ingestResult(mapper, new IngestResult(0, 0, 0)));
                return;
            }
            IngestResult result;
            try {
                result = s.ingest(batch, receiptUs);
            } catch (RuntimeException e) {
                log.warn("Applying a telemetry batch failed", e);
                error(ex, 500, "applying the batch failed: " + e.getMessage());
                return;
            }
            batches.incrementAndGet();
            // Before the answer: the controller's rule batch goes to the fabric first (the
            // loop's critical path); the collector only waits for its acknowledgement, and the
            // events it gathers meanwhile leave in its next batch.
            s.afterIngest();
            respond(ex, 200, TelemetryJson.ingestResult(mapper, result));
        } finally {
            ex.close();
        }
    }

    private void handlePintFlows(HttpExchange ex) throws IOException {
        try {
            if (!PINT_FLOWS_PATH.equals(ex.getRequestURI().getPath())) {
                error(ex, 404, "no such resource");
                return;
            }
            if (!"GET".equals(ex.getRequestMethod())) {
                ex.getResponseHeaders().add("Allow", "GET");
                error(ex, 405, "only GET is allowed");
                return;
            }
            TelemetrySink s = sink.get();
            if (!(s instanceof LabController)) {
                error(ex, 503, "no PlanckTE run in progress");
                return;
            }
            LabController c = (LabController) s;
            ObjectNode root = mapper.createObjectNode();
            ArrayNode flows = root.putArray("flows");
            for (FlowConformance f : new ConformanceFilter(null, null).select(c.conformance(), Integer.MAX_VALUE)) {
                flows.add(PintJson.flow(mapper, f));
            }
            root.set("counters", PintJson.counters(mapper, c.pintCounters()));
            respond(ex, 200, root);
        } finally {
            ex.close();
        }
    }

    private void error(HttpExchange ex, int code, String message) throws IOException {
        ObjectNode body = mapper.createObjectNode();
        body.put("code", code);
        body.put("message", message);
        respond(ex, code, body);
    }

    private void respond(HttpExchange ex, int code, ObjectNode body) throws IOException {
        byte[] bytes = mapper.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(code, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

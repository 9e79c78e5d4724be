package org.planck.lab.view;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.planck.lab.http.NoDelayHttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Serves the live fabric view: the page ({@code /}), its script and the vendored d3
 * ({@code /static/...}), and the view as JSON ({@code /api/view}), which the page polls.
 * A run attaches its controller with {@link #show}; between runs the JSON says so.
 */
public final class FabricViewServer implements AutoCloseable {
    private static final String RESOURCES = "/org/planck/lab/view/";
    private static final Map<String, String> STATIC = Map.of(
            "/", "index.html",
            "/static/fabric-view.js", "fabric-view.js",
            "/static/d3.min.js", "d3.min.js",
            "/static/d3.LICENSE", "d3.LICENSE");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final HttpServer server;
    private final ExecutorService executor;
    private final AtomicReference<FabricViewSource> source = new AtomicReference<>();
    private final LongSupplier clockMs;

    private FabricViewServer(HttpServer server, ExecutorService executor, LongSupplier clockMs) {
        this.server = server;
        this.executor = executor;
        this.clockMs = clockMs;
    }

    /**
     * Starts the server.
     *
     * @param address where to listen (port 0: any free port)
     * @return the running server
     * @throws IOException if the address cannot be bound
     */
    public static FabricViewServer start(InetSocketAddress address) throws IOException {
        return start(address, System::currentTimeMillis);
    }

    static FabricViewServer start(InetSocketAddress address, LongSupplier clockMs) throws IOException {
        HttpServer server = NoDelayHttpServer.create(address, 16);
        // Two threads: the page polls twice a second; more browsers just queue.
        ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "fabric-view-http");
            t.setDaemon(true);
            return t;
        });
        FabricViewServer s = new FabricViewServer(server, executor, clockMs);
        server.createContext("/", s::handle);
        server.setExecutor(executor);
        server.start();
        return s;
    }

    /**
     * Shows a run (replacing the previous one), or nothing.
     *
     * @param run the run's view source, or null between runs
     */
    public void show(FabricViewSource run) {
        source.set(run);
    }

    /** Port the server listens on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** URL of the page. */
    public String url() {
        return "http://" + server.getAddress().getHostString() + ":" + port() + "/";
    }

    private void handle(HttpExchange ex) throws IOException {
        try {
            String path = ex.getRequestURI().getPath();
            if (!"GET".equals(ex.getRequestMethod())) {
                send(ex, 405, "text/plain", "only GET\n".getBytes(StandardCharsets.UTF_8));
            } else if ("/api/view".equals(path)) {
                FabricViewSource run = source.get();
                byte[] body = run == null
                        ? "{\"running\":false}".getBytes(StandardCharsets.UTF_8)
                        : MAPPER.writeValueAsBytes(FabricViewJson.view(run, clockMs.getAsLong()).put("running", true));
                send(ex, 200, "application/json", body);
            } else if (STATIC.containsKey(path)) {
                String name = STATIC.get(path);
                try (InputStream in = FabricViewServer.class.getResourceAsStream(RESOURCES + name)) {
                    if (in == null) {
                        send(ex, 500, "text/plain", ("missing resource " + name + "\n").getBytes(StandardCharsets.UTF_8));
                        return;
                    }
                    send(ex, 200, contentType(name), in.readAllBytes());
                }
            } else {
                send(ex, 404, "text/plain", ("no such page: " + path + "\n").getBytes(StandardCharsets.UTF_8));
            }
        } finally {
            ex.close();
        }
    }

    private static String contentType(String name) {
        if (name.endsWith(".html")) {
            return "text/html; charset=utf-8";
        }
        return name.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/plain; charset=utf-8";
    }

    private static void send(HttpExchange ex, int code, String type, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        ex.sendResponseHeaders(code, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

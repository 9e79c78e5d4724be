package org.planck.app.collector;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutorService;

/**
 * A collector's control endpoint on 127.0.0.1 for tests: records every request and answers
 * with scripted status codes (204 once the script runs out).
 */
final class CollectorEndpoint implements AutoCloseable {

    /** One received request. */
    static final class Request {
        final String method;
        final String path;
        final String body;
        /** The Authorization header, or null. */
        final String authorization;

        Request(String method, String path, String body, String authorization) {
            this.method = method;
            this.path = path;
            this.body = body;
            this.authorization = authorization;
        }
    }

    private final HttpServer server;
    private final ExecutorService pool = Executors.newFixedThreadPool(2);
    private final BlockingQueue<Integer> script = new ArrayBlockingQueue<>(64);
    final List<Request> requests = new CopyOnWriteArrayList<>();
    private volatile CountDownLatch gate = new CountDownLatch(0);

    CollectorEndpoint() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", exchange -> {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            requests.add(new Request(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    new String(body, StandardCharsets.UTF_8),
                    exchange.getRequestHeaders().getFirst("Authorization")));
            try {
                gate.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Integer status = script.poll();
            int code = status == null ? 204 : status;
            if (code == 204) {
                exchange.sendResponseHeaders(204, -1);
            } else {
                byte[] err = ("{\"code\":" + code + ",\"message\":\"scripted\"}").getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(code, err.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(err);
                }
            }
            exchange.close();
        });
        server.setExecutor(pool);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    void answer(int... codes) {
        for (int c : codes) {
            script.add(c);
        }
    }

    /** Holds every answer until {@link #open()} is called. */
    void hold() {
        gate = new CountDownLatch(1);
    }

    void open() {
        gate.countDown();
    }

    @Override
    public void close() {
        open();
        server.stop(0);
        pool.shutdownNow();
    }
}

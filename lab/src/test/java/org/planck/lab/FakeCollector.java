package org.planck.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import org.planck.lab.control.LabController;
import org.planck.lab.control.TelemetryEndpoint;
import org.planck.lab.http.NoDelayHttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A fake collector for tests: its control endpoint records forwarding-map and config pushes, and
 * every few milliseconds it reports the fake fabric's flows (exact rates at their first egress
 * port) and port congestion transitions to the lab's telemetry endpoint, as telemetry-events-v1.
 */
public final class FakeCollector implements AutoCloseable {
    private final ObjectMapper mapper = new ObjectMapper();
    private final HttpServer control;
    private final HttpClient http = HttpClient.newHttpClient();
    private final ScheduledExecutorService reporter = Executors.newSingleThreadScheduledExecutor();
    private final List<JsonNode> forwardingPushes = new CopyOnWriteArrayList<>();
    private final List<JsonNode> configPushes = new CopyOnWriteArrayList<>();
    private final URI events;
    private final String auth;
    private volatile FakeFabric fabric;
    private final Set<String> congested = new HashSet<>();
    private long seq;

    /**
     * A collector reporting to a lab endpoint.
     *
     * @param endpointPort lab telemetry endpoint port on 127.0.0.1
     * @param user         basic-auth user
     * @param password     basic-auth password
     * @param periodMs     report period
     * @throws IOException if the control endpoint cannot start
     */
    public FakeCollector(int endpointPort, String user, String password, long periodMs) throws IOException {
        this.events = URI.create("http://127.0.0.1:" + endpointPort + TelemetryEndpoint.PATH);
        this.auth = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        control = NoDelayHttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        control.createContext("/v1/", ex -> {
            JsonNode body = mapper.readTree(ex.getRequestBody().readAllBytes());
            if ("/v1/forwarding".equals(ex.getRequestURI().getPath())) {
                forwardingPushes.add(body);
            } else {
                configPushes.add(body);
            }
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        control.start();
        reporter.scheduleAtFixedRate(this::report, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    public URI control() {
        return URI.create("http://127.0.0.1:" + control.getAddress().getPort());
    }

    /**
     * The fabric whose flows are reported from now on.
     *
     * @param f fabric, or null
     */
    public synchronized void watch(FakeFabric f) {
        fabric = f;
        congested.clear();
    }

    public List<JsonNode> forwardingPushes() {
        return forwardingPushes;
    }

    public List<JsonNode> configPushes() {
        return configPushes;
    }

    private synchronized void report() {
        FakeFabric f = fabric;
        if (f == null || f.isShutdown()) {
            return;
        }
        try {
            long now = LabController.nowUs();
            double cap = f.linkBps() / 8.0;
            Map<String, Double> load = new HashMap<>();
            List<String> ev = new ArrayList<>();
            for (Object[] flow : f.activeFlows().values()) {
                double rate = (Double) flow[0];
                @SuppressWarnings("unchecked")
                List<String> ports = (List<String>) flow[1];
                for (String p : ports) {
                    load.merge(p, rate, Double::sum);
                }
                String first = ports.get(0);
                ev.add(String.format(Locale.ROOT, "{\"type\":\"FLOW_RATE\",\"flow\":{\"src\":\"%s\",\"dst\":\"%s\","
                        + "\"proto\":6,\"sport\":%d,\"dport\":%d},\"switch\":\"%s\",\"port\":%s,"
                        + "\"dstMac\":\"02:70:00:00:00:01\",\"bytesPerSec\":%.1f,\"samples\":8,"
                        + "\"firstSampleUs\":%d,\"lastSampleUs\":%d,\"estimator\":\"TCP_SEQ\"}", flow[2], flow[3],
                        flow[4], flow[5], first.split("\\|")[0], first.split("\\|")[1], rate, now - 2000, now));
            }
            Set<String> ports = new HashSet<>(load.keySet());
            ports.addAll(congested);
            for (String p : ports) {
                double util = load.getOrDefault(p, 0.0) / cap;
                String state = null;
                if (util >= 0.8 && congested.add(p)) {
                    state = "CONGESTED";
                } else if (util < 0.75 && congested.remove(p)) {
                    state = "CLEARED";
                }
                if (state != null) {
                    ev.add(String.format(Locale.ROOT, "{\"type\":\"PORT_CONGESTION\",\"switch\":\"%s\",\"port\":%s,"
                            + "\"state\":\"%s\",\"utilization\":%.4f,\"loadBps\":%.1f,\"capacityBps\":%d.0,"
                            + "\"sampleUs\":%d,\"timeUs\":%d}", p.split("\\|")[0], p.split("\\|")[1], state, util,
                            util * f.linkBps(), f.linkBps(), now - 200, now));
                }
            }
            if (ev.isEmpty()) {
                return;
            }
            String body = "{\"version\":1,\"collector\":\"c1\",\"seq\":" + (seq++) + ",\"sentUs\":" + now
                    + ",\"events\":[" + String.join(",", ev) + "]}";
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(events).header("Content-Type", "application/json")
                    .header("Authorization", auth).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("lab refused a batch: " + r.statusCode() + " " + r.body());
            }
        } catch (IOException e) {
            // The run may have ended between snapshot and post.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        reporter.shutdownNow();
        control.stop(0);
    }
}

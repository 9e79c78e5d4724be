package org.planck.lab.ovs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.onosproject.net.DeviceId;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;
import org.planck.lab.control.LabController;
import org.planck.lab.emu.EmulatorTopology;
import org.planck.lab.emu.RuleTranslation;
import org.planck.lab.http.NoDelayHttpServer;
import org.planck.lab.openflow.FlowCounter;
import org.planck.lab.openflow.FlowModTranslation;
import org.planck.lab.openflow.InstallResult;
import org.planck.lab.openflow.OpenFlowSouthbound;
import org.planck.lab.openflow.PortCounters;
import org.planck.lab.openflow.RuleRejection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The emulator control API, version 1 (docs/protocol/emulator-control-v1.md), served for an OVS lab
 * fabric, so the lab's experiment runner and controller drive real switches unchanged: topology
 * from {@link OvsLabFabric}; rules as OpenFlow 1.3 flow-mods through the {@link OpenFlowSouthbound}
 * ({@code appliedUs} is when the last switch's barrier reply arrived: the rules are in force);
 * counters from OpenFlow port and flow statistics; flows as real TCP from the hosts' namespaces
 * ({@link HostAgents}); mirrors as OVSDB mirrors ({@link OvsMirrors}).
 *
 * <p>A rule batch spans switches, and OpenFlow has no transaction across them: if any switch
 * refuses a rule or is down, the switches that took their part are put back as they were, and the
 * answer (502) names the refused rules and whether the roll-back completed. Nothing stays
 * half-installed without the caller being told.</p>
 */
public final class OvsControlApi implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OvsControlApi.class);
    private static final long SWITCH_TIMEOUT_MS = 8000;
    private static final int MAX_BODY = 4 << 20;

    private final OvsLabFabric fabric;
    private final OpenFlowSouthbound southbound;
    private final HostAgents hosts;
    private final OvsMirrors mirrors;
    private final OvsRuleOps ruleOps;
    private final HttpServer server;
    private final ExecutorService executor;
    private final ObjectMapper mapper = new ObjectMapper();
    private final ObjectNode topology;
    private final List<DeviceId> devices = new ArrayList<>();
    private final long missBaseline;

    /**
     * Starts serving.
     *
     * @param fabric     the fabric
     * @param southbound connected to the fabric's bridges
     * @param hosts      the fabric's hosts
     * @param mirrors    the fabric's mirror control
     * @param listen     address to serve on
     * @throws IOException if the address cannot be bound
     */
    public OvsControlApi(OvsLabFabric fabric, OpenFlowSouthbound southbound, HostAgents hosts, OvsMirrors mirrors,
                         InetSocketAddress listen) throws IOException {
        this.fabric = fabric;
        this.southbound = southbound;
        this.hosts = hosts;
        this.mirrors = mirrors;
        this.topology = fabric.topologyJson(mapper);
        fabric.bridges().forEach(b -> devices.add(b.device()));
        // The lab controller plans from this topology with the same planner: same rules.
        RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(),
                                                  LabController.PATHS_PER_DESTINATION)
                .plan(EmulatorTopology.parse(topology).graph());
        this.ruleOps = new OvsRuleOps(plan);
        try {
            missBaseline = mirrors.tableMisses();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        server = NoDelayHttpServer.create(listen, 64);
        executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "ovs-control-api");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/v1/", this::handle);
        server.start();
    }

    /**
     * Base URI of the API.
     *
     * @return e.g. {@code http://127.0.0.1:19870}
     */
    public URI uri() {
        InetSocketAddress a = server.getAddress();
        return URI.create("http://" + a.getHostString() + ":" + a.getPort());
    }

    private void handle(HttpExchange ex) throws IOException {
        String route = ex.getRequestMethod() + " " + ex.getRequestURI().getPath();
        int code = 200;
        JsonNode answer;
        try {
            switch (route) {
                case "GET /v1/topology":
                    answer = topology;
                    break;
                case "GET /v1/counters":
                    answer = counters();
                    break;
                case "POST /v1/rules":
                    answer = rules(body(ex));
                    break;
                case "PUT /v1/mirrors":
                    answer = mirrors(body(ex));
                    break;
                case "POST /v1/flows":
                    answer = startFlows(body(ex));
                    break;
                case "GET /v1/flows":
                    answer = flows();
                    break;
                case "GET /v1/status":
                    answer = status();
                    break;
                default:
                    code = 404;
                    answer = error(404, "no such endpoint: " + route);
            }
        } catch (IllegalArgumentException e) {
            code = 400;
            answer = error(400, e.getMessage());
        } catch (RuleBatchFailed e) {
            code = 502;
            answer = error(502, e.getMessage());
        } catch (RuntimeException | ExecutionException | TimeoutException e) {
            code = 500;
            answer = error(500, String.valueOf(e.getMessage()));
            log.warn("{}: {}", route, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            code = 503;
            answer = error(503, "interrupted");
        }
        byte[] bytes = mapper.writeValueAsBytes(answer);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(code, bytes.length);
        try (OutputStream o = ex.getResponseBody()) {
            o.write(bytes);
        }
    }

    private JsonNode body(HttpExchange ex) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            byte[] b = in.readNBytes(MAX_BODY + 1);
            if (b.length > MAX_BODY) {
                throw new IllegalArgumentException("body larger than " + MAX_BODY + " bytes");
            }
            try {
                return mapper.readTree(b);
            } catch (IOException e) {
                throw new IllegalArgumentException("body is not JSON: " + e.getMessage());
            }
        }
    }

    private ObjectNode error(int code, String message) {
        return mapper.createObjectNode().put("code", code).put("message", message);
    }

    /** A rule batch some switch refused or could not take. */
    static final class RuleBatchFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RuleBatchFailed(String message) {
            super(message);
        }
    }

    private Map<String, PlannedRule> wantedByKey(DeviceId d) {
        Map<String, PlannedRule> m = new HashMap<>();
        for (PlannedRule r : southbound.wantedRules(d)) {
            m.put(RuleTranslation.add(r).ruleKey(), r);
        }
        return m;
    }

    private synchronized JsonNode rules(JsonNode body) throws InterruptedException {
        Map<DeviceId, Map<String, PlannedRule>> held = new HashMap<>();
        OvsRuleOps.Batch b = ruleOps.read(body, d -> held.computeIfAbsent(d, this::wantedByKey));
        for (DeviceId d : b.adds.keySet()) {
            if (!devices.contains(d)) {
                throw new IllegalArgumentException("no switch " + d + " in this fabric");
            }
        }
        // What each switch holds for the rules the batch touches, for the roll-back.
        Map<DeviceId, Map<List<Object>, PlannedRule>> before = new LinkedHashMap<>();
        for (DeviceId d : devices) {
            Map<List<Object>, PlannedRule> m = new HashMap<>();
            southbound.wantedRules(d).forEach(r -> m.put(r.matchKey(), r));
            before.put(d, m);
        }
        Map<DeviceId, CompletableFuture<InstallResult>> sent = new LinkedHashMap<>();
        java.util.Set<DeviceId> touched = new java.util.LinkedHashSet<>(b.removes.keySet());
        touched.addAll(b.adds.keySet());
        for (DeviceId d : touched) {
            sent.put(d, southbound.install(d, b.adds.getOrDefault(d, List.of()), b.removes.getOrDefault(d, List.of())));
        }
        long inForceNanos = 0;
        List<String> failures = new ArrayList<>();
        for (Map.Entry<DeviceId, CompletableFuture<InstallResult>> e : sent.entrySet()) {
            try {
                InstallResult r = e.getValue().get(SWITCH_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                if (r.allInForce()) {
                    inForceNanos = Math.max(inForceNanos, r.inForceNanos());
                } else {
                    for (RuleRejection rej : r.rejections()) {
                        failures.add(rej.toString());
                    }
                }
            } catch (ExecutionException | TimeoutException x) {
                failures.add(e.getKey() + ": " + (x.getCause() != null ? x.getCause().getMessage() : "no barrier reply"));
            }
        }
        if (failures.isEmpty()) {
            // An empty batch is in force at once.
            long appliedUs = sent.isEmpty() ? nowUs() : nowUs() - (System.nanoTime() - inForceNanos) / 1000;
            return mapper.createObjectNode().put("version", 1).put("applied", b.ops).put("appliedUs", appliedUs);
        }
        // Put every switch the batch touched back as it was, refused ones included (their
        // accepted rules went in; the refused one is already out of the wanted rules).
        List<String> undone = new ArrayList<>();
        for (DeviceId d : touched) {
            Map<List<Object>, PlannedRule> old = before.get(d);
            List<PlannedRule> restore = new ArrayList<>();
            List<PlannedRule> drop = new ArrayList<>();
            for (PlannedRule r : b.adds.getOrDefault(d, List.of())) {
                PlannedRule prev = old.get(r.matchKey());
                if (prev != null) {
                    restore.add(prev);
                } else {
                    drop.add(r);
                }
            }
            restore.addAll(b.removes.getOrDefault(d, List.of()));
            try {
                InstallResult r = southbound.install(d, restore, drop).get(SWITCH_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                if (!r.allInForce()) {
                    undone.add(d + " refused the roll-back: " + r.rejections());
                }
            } catch (ExecutionException | TimeoutException x) {
                undone.add(d + " not rolled back now (" + (x.getCause() != null ? x.getCause().getMessage()
                        : "no barrier reply") + "); its wanted rules are the old ones and go in on reconnect");
            }
        }
        throw new RuleBatchFailed("rule batch refused, nothing of it kept: " + String.join("; ", failures)
                + (undone.isEmpty() ? "; rolled back on " + touched.size() + " switches"
                                    : "; roll-back incomplete: " + String.join("; ", undone)));
    }

    private static String counterKey(org.projectfloodlight.openflow.protocol.match.Match m, int priority) {
        return priority + "/" + m;
    }

    private JsonNode counters() throws InterruptedException, ExecutionException, TimeoutException {
        long timeUs = nowUs();
        Map<DeviceId, CompletableFuture<Map<Long, PortCounters>>> ports = new LinkedHashMap<>();
        Map<DeviceId, CompletableFuture<List<FlowCounter>>> rules = new LinkedHashMap<>();
        for (DeviceId d : devices) {
            ports.put(d, southbound.portStats(d));
            rules.put(d, southbound.flowStats(d));
        }
        ObjectNode o = mapper.createObjectNode();
        o.put("version", 1);
        o.put("timeUs", timeUs);
        ArrayNode pa = o.putArray("ports");
        ArrayNode ra = o.putArray("rules");
        for (OvsLabFabric.Bridge b : fabric.bridges()) {
            DeviceId d = b.device();
            for (PortCounters c : ports.get(d).get(SWITCH_TIMEOUT_MS, TimeUnit.MILLISECONDS).values()) {
                if (c.port() < 1 || c.port() > b.ports) {
                    continue;
                }
                pa.addObject().put("switch", d.toString()).put("port", c.port()).put("txBytes", c.txBytes())
                        .put("txPackets", c.txPackets()).put("drops", c.txDropped());
            }
            Map<String, PlannedRule> byMatch = new HashMap<>();
            for (PlannedRule r : southbound.wantedRules(d)) {
                byMatch.put(counterKey(FlowModTranslation.match(r), r.priority()), r);
            }
            for (FlowCounter c : rules.get(d).get(SWITCH_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                PlannedRule r = byMatch.get(counterKey(c.match(), c.priority()));
                if (r == null) {
                    continue;
                }
                ObjectNode ro = ra.addObject();
                ro.put("switch", d.toString()).put("priority", r.priority());
                ObjectNode m = ro.putObject("match");
                RuleTranslation.match(r).forEach((k, v) -> {
                    if (v instanceof Number) {
                        m.put(k, ((Number) v).longValue());
                    } else {
                        m.put(k, String.valueOf(v));
                    }
                });
                ro.put("bytes", c.bytes()).put("packets", c.packets());
            }
        }
        return o;
    }

    private JsonNode mirrors(JsonNode body) throws InterruptedException {
        if (body == null || body.path("version").asInt(-1) != 1 || !body.path("mirrors").isArray()) {
            throw new IllegalArgumentException("mirrors must be a version-1 object with a mirrors array");
        }
        List<String> bridges = new ArrayList<>();
        long rate = 0;
        long buffer = 0;
        int snap = 0;
        for (JsonNode m : body.get("mirrors")) {
            rate = m.path("rateBps").asLong();
            buffer = m.path("bufferBytes").asLong();
            snap = m.path("snapLen").asInt();
            DeviceId d = DeviceId.deviceId(m.path("switch").asText(""));
            OvsLabFabric.Bridge br = fabric.bridges().stream().filter(x -> x.device().equals(d)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no switch " + d));
            if (m.path("rspanVlan").asLong() != EmulatorTopology.switchNumber(d)) {
                throw new IllegalArgumentException(d + ": the OVS lab tags each switch's copies with its number, "
                        + EmulatorTopology.switchNumber(d));
            }
            bridges.add(br.name());
        }
        mirrors.set(bridges, rate, buffer, snap);
        return mapper.createObjectNode().put("version", 1).put("mirrors", bridges.size());
    }

    private JsonNode startFlows(JsonNode body) throws IOException {
        if (body == null || body.path("version").asInt(-1) != 1 || !body.path("flows").isArray()) {
            throw new IllegalArgumentException("flows must be a version-1 object with a flows array");
        }
        for (JsonNode f : body.get("flows")) {
            if (f.path("startUs").asLong(0) != 0) {
                throw new IllegalArgumentException("the OVS lab starts flows at once (startUs 0)");
            }
            hosts.start(f.path("id").asLong(), f.path("src").asText(), f.path("dst").asText(), f.path("bytes").asLong(),
                        f.path("sport").asInt(), f.path("dport").asInt());
        }
        return mapper.createObjectNode().put("version", 1).put("started", body.get("flows").size());
    }

    private JsonNode flows() {
        for (HostAgents.Flow f : hosts.flows()) {
            if (f.failure != null) {
                // A flow that failed never finishes: say so now rather than at the run's timeout.
                throw new IllegalStateException("flow " + f.id + " from " + f.src + " failed: " + f.failure);
            }
        }
        ObjectNode o = mapper.createObjectNode();
        o.put("version", 1);
        ArrayNode a = o.putArray("flows");
        for (HostAgents.Flow f : hosts.flows()) {
            a.addObject().put("id", f.id).put("src", f.src).put("dst", f.dst).put("bytes", f.bytes)
                    .put("startUs", f.done ? f.startUs : f.requestedUs).put("finishUs", f.done ? f.finishUs : 0)
                    .put("sentBytes", f.done ? f.bytes : 0).put("done", f.done)
                    .put("retransmits", f.retransmits).put("timeouts", f.timeouts);
        }
        return o;
    }

    private JsonNode status() throws InterruptedException {
        long[] m = mirrors.counters();
        // Real switches keep real time: there is no emulated clock to fall behind. Unmatched: table-0
        // lookups without a match since this run began (OVS drops them in fail-secure mode).
        long unmatched = mirrors.tableMisses() - missBaseline;
        return mapper.createObjectNode().put("version", 1).put("mode", "ovs").put("timeUs", nowUs())
                .put("lagUs", 0).put("maxLagUs", 0).put("unmatched", unmatched).put("mirrorFrames", m[0])
                .put("mirrorDrops", m[1]).put("failedFlows", hosts.failures());
    }

    /**
     * Now, µs since the epoch (the collector's capture stamps and the lab controller use it too).
     *
     * @return µs
     */
    static long nowUs() {
        Instant t = Instant.now();
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

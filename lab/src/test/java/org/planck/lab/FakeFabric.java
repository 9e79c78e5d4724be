package org.planck.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.planck.lab.control.LabController;
import org.planck.lab.http.NoDelayHttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A fake planck-emu fabric for tests: a real HTTP server on 127.0.0.1 implementing the emulator
 * control API v1 over a fluid model. Packets are forwarded by the installed rules (highest
 * priority match, optional eth_dst rewrite, output), so wrong rules strand flows; flows share
 * every egress port max-min fairly; counters, appliedUs and flow times use the wall clock (µs).
 */
public final class FakeFabric implements AutoCloseable {
    private boolean refuseRules;
    /** A rule as installed. */
    static final class Rule {
        final int priority;
        final Map<String, String> match;
        final String setEthDst;
        final long output;
        long bytes;

        Rule(int priority, Map<String, String> match, String setEthDst, long output) {
            this.priority = priority;
            this.match = match;
            this.setEthDst = setEthDst;
            this.output = output;
        }

        boolean matches(Map<String, String> pkt) {
            for (Map.Entry<String, String> e : match.entrySet()) {
                if (!e.getValue().equals(pkt.get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
    }

    /** A host. */
    static final class Host {
        final String mac;
        final String ip;
        final String sw;
        final long port;

        Host(String mac, String ip, String sw, long port) {
            this.mac = mac;
            this.ip = ip;
            this.sw = sw;
            this.port = port;
        }
    }

    /** A flow of the fluid model. */
    static final class Flow {
        final long id;
        final Host src;
        final Host dst;
        final long bytes;
        final int sport;
        final int dport;
        final long startUs;
        double sent;
        long finishUs = -1;
        List<String> ports = List.of();
        List<Rule> rules = List.of();
        double rate;

        Flow(long id, Host src, Host dst, long bytes, int sport, int dport, long startUs) {
            this.id = id;
            this.src = src;
            this.dst = dst;
            this.bytes = bytes;
            this.sport = sport;
            this.dport = dport;
            this.startUs = startUs;
        }
    }

    private final ObjectMapper mapper = new ObjectMapper();
    private final HttpServer server;
    private final long linkBps;
    private final Map<String, List<Long>> switches = new TreeMap<>();
    private final Map<String, String> roles = new HashMap<>();
    /** "sw|port" -> "sw|port" of the link's other end. */
    private final Map<String, String> links = new LinkedHashMap<>();
    private final List<Host> hosts = new ArrayList<>();
    private final Map<String, List<Rule>> rules = new HashMap<>();
    private final Map<Long, Flow> flows = new LinkedHashMap<>();
    private final Map<String, Long> txBytes = new HashMap<>();
    private final List<JsonNode> ruleBatches = new CopyOnWriteArrayList<>();
    private final List<JsonNode> mirrorConfigs = new CopyOnWriteArrayList<>();
    private long lastUs;
    private long unmatched;
    private volatile boolean shutdown;

    private FakeFabric(long linkBps) throws IOException {
        this.linkBps = linkBps;
        server = NoDelayHttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.createContext("/v1/", this::handle);
        server.start();
        lastUs = LabController.nowUs();
    }

    private static String sw(int n) {
        return String.format("of:%016x", n);
    }

    /**
     * A k=4 fat tree: cores 1-4, aggregations 5-12, edges 13-20; host i (0-15) on edge 13 + i/2.
     *
     * @param linkBps link rate
     * @return running fabric
     * @throws IOException if the server cannot start
     */
    public static FakeFabric fatTree(long linkBps) throws IOException {
        FakeFabric f = new FakeFabric(linkBps);
        for (int c = 0; c < 4; c++) {
            f.addSwitch(sw(1 + c), "core", 4);
        }
        for (int p = 0; p < 4; p++) {
            for (int i = 0; i < 2; i++) {
                f.addSwitch(sw(5 + 2 * p + i), "aggregation", 4);
                f.addSwitch(sw(13 + 2 * p + i), "edge", 4);
            }
        }
        for (int p = 0; p < 4; p++) {
            for (int e = 0; e < 2; e++) {
                for (int a = 0; a < 2; a++) {
                    // edge e port 3+a <-> aggregation a port 1+e
                    f.link(sw(13 + 2 * p + e), 3 + a, sw(5 + 2 * p + a), 1 + e);
                }
            }
            for (int a = 0; a < 2; a++) {
                for (int j = 0; j < 2; j++) {
                    // aggregation a port 3+j <-> core 2a+j port 1+p
                    f.link(sw(5 + 2 * p + a), 3 + j, sw(1 + 2 * a + j), 1 + p);
                }
            }
        }
        for (int i = 0; i < 16; i++) {
            f.hosts.add(new Host(String.format("00:00:00:00:00:%02x", i + 1), "10.0.0." + (i + 1),
                                 sw(13 + i / 2), 1 + i % 2));
        }
        return f;
    }

    /**
     * One non-blocking switch with 16 hosts.
     *
     * @param linkBps link rate
     * @return running fabric
     * @throws IOException if the server cannot start
     */
    public static FakeFabric singleSwitch(long linkBps) throws IOException {
        FakeFabric f = new FakeFabric(linkBps);
        f.addSwitch(sw(1), "switch", 16);
        for (int i = 0; i < 16; i++) {
            f.hosts.add(new Host(String.format("00:00:00:00:00:%02x", i + 1), "10.0.0." + (i + 1), sw(1), 1 + i));
        }
        return f;
    }

    private void addSwitch(String id, String role, int ports) {
        List<Long> ps = new ArrayList<>();
        for (long p = 1; p <= ports; p++) {
            ps.add(p);
        }
        switches.put(id, ps);
        roles.put(id, role);
        rules.put(id, new ArrayList<>());
    }

    private void link(String a, long ap, String b, long bp) {
        links.put(a + "|" + ap, b + "|" + bp);
        links.put(b + "|" + bp, a + "|" + ap);
    }

    public URI control() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Rule batches received, in order. */
    public List<JsonNode> ruleBatches() {
        return ruleBatches;
    }

    /** Mirror configurations received. */
    public List<JsonNode> mirrorConfigs() {
        return mirrorConfigs;
    }

    public boolean isShutdown() {
        return shutdown;
    }

    /** From now on every rule batch is refused with 503 (and still recorded), as by a fabric in trouble. */
    public synchronized void refuseRules() {
        refuseRules = true;
    }

    /** Number of rules installed on a switch. */
    public synchronized int ruleCount(String sw) {
        return rules.getOrDefault(sw, List.of()).size();
    }

    /** The egress ports ("sw|port") a packet of the given flow crosses now, empty if it is dropped. */
    public synchronized List<String> path(String srcMac, String dstMac, String srcIp, String dstIp, int sport,
                                          int dport) {
        Host s = host(srcMac);
        Host d = host(dstMac);
        Flow probe = new Flow(-1, s, d, 1, sport, dport, 0);
        route(probe);
        return probe.ports;
    }

    /** Snapshot of active flows for a fake collector: id -> (rate bytes/s, egress ports). */
    public synchronized Map<Long, Object[]> activeFlows() {
        advance();
        Map<Long, Object[]> out = new LinkedHashMap<>();
        for (Flow f : flows.values()) {
            if (f.finishUs < 0 && !f.ports.isEmpty()) {
                out.put(f.id, new Object[]{f.rate, new ArrayList<>(f.ports), f.src.ip, f.dst.ip, f.sport, f.dport});
            }
        }
        return out;
    }

    public long linkBps() {
        return linkBps;
    }

    private Host host(String mac) {
        for (Host h : hosts) {
            if (h.mac.equalsIgnoreCase(mac)) {
                return h;
            }
        }
        return null;
    }

    private Host hostAt(String swPort) {
        for (Host h : hosts) {
            if ((h.sw + "|" + h.port).equals(swPort)) {
                return h;
            }
        }
        return null;
    }

    /** Walks the rules from the source's edge; sets the flow's ports and rules (empty if dropped). */
    private void route(Flow f) {
        Map<String, String> pkt = new HashMap<>();
        pkt.put("ethSrc", f.src.mac);
        pkt.put("ethDst", f.dst.mac);
        pkt.put("ipSrc", f.src.ip);
        pkt.put("ipDst", f.dst.ip);
        pkt.put("proto", "6");
        pkt.put("sport", String.valueOf(f.sport));
        pkt.put("dport", String.valueOf(f.dport));
        String at = f.src.sw;
        pkt.put("inPort", String.valueOf(f.src.port));
        List<String> ports = new ArrayList<>();
        List<Rule> used = new ArrayList<>();
        for (int hop = 0; hop < 16; hop++) {
            Rule best = null;
            for (Rule r : rules.get(at)) {
                if (r.matches(pkt) && (best == null || r.priority > best.priority)) {
                    best = r;
                }
            }
            if (best == null) {
                break;
            }
            used.add(best);
            if (best.setEthDst != null) {
                pkt.put("ethDst", best.setEthDst);
            }
            String out = at + "|" + best.output;
            ports.add(out);
            String peer = links.get(out);
            if (peer == null) {
                Host h = hostAt(out);
                if (h == f.dst && h.mac.equals(pkt.get("ethDst"))) {
                    f.ports = ports;
                    f.rules = used;
                    return;
                }
                break;
            }
            at = peer.substring(0, peer.indexOf('|'));
            pkt.put("inPort", peer.substring(peer.indexOf('|') + 1));
        }
        f.ports = List.of();
        f.rules = List.of();
    }

    /** Advances the fluid model to now: max-min fair rates, bytes, counters, completions. */
    private void advance() {
        long now = LabController.nowUs();
        long t = lastUs;
        while (t < now) {
            List<Flow> active = new ArrayList<>();
            for (Flow f : flows.values()) {
                if (f.finishUs < 0 && f.startUs <= t) {
                    route(f);
                    if (f.ports.isEmpty()) {
                        unmatched++;
                        f.rate = 0;
                    } else {
                        active.add(f);
                    }
                }
            }
            maxMinRates(active);
            // Step to the next event: now, a completion, or a start.
            long end = now;
            for (Flow f : active) {
                if (f.rate > 0) {
                    long done = t + (long) Math.ceil((f.bytes - f.sent) / f.rate * 1e6);
                    end = Math.min(end, Math.max(done, t + 1));
                }
            }
            for (Flow f : flows.values()) {
                if (f.finishUs < 0 && f.startUs > t) {
                    end = Math.min(end, f.startUs);
                }
            }
            double dt = (end - t) / 1e6;
            for (Flow f : active) {
                double b = Math.min(f.bytes - f.sent, f.rate * dt);
                f.sent += b;
                for (String p : f.ports) {
                    txBytes.merge(p, (long) b, Long::sum);
                }
                for (Rule r : f.rules) {
                    r.bytes += (long) b;
                }
                if (f.sent >= f.bytes - 0.5) {
                    f.sent = f.bytes;
                    f.finishUs = end;
                    f.rate = 0;
                }
            }
            t = end;
        }
        lastUs = now;
    }

    private void maxMinRates(List<Flow> active) {
        double cap = linkBps / 8.0;
        Map<String, Double> left = new HashMap<>();
        Map<String, Integer> users = new HashMap<>();
        for (Flow f : active) {
            f.rate = -1;
            for (String p : f.ports) {
                left.putIfAbsent(p, cap);
                users.merge(p, 1, Integer::sum);
            }
        }
        int unfixed = active.size();
        while (unfixed > 0) {
            String bottleneck = null;
            double share = Double.MAX_VALUE;
            for (Map.Entry<String, Integer> e : users.entrySet()) {
                if (e.getValue() > 0 && left.get(e.getKey()) / e.getValue() < share) {
                    share = left.get(e.getKey()) / e.getValue();
                    bottleneck = e.getKey();
                }
            }
            for (Flow f : active) {
                if (f.rate < 0 && f.ports.contains(bottleneck)) {
                    f.rate = share;
                    unfixed--;
                    for (String p : f.ports) {
                        left.put(p, left.get(p) - share);
                        users.merge(p, -1, Integer::sum);
                    }
                }
            }
        }
    }

    private void handle(HttpExchange ex) throws IOException {
        try {
            String key = ex.getRequestMethod() + " " + ex.getRequestURI().getPath();
            JsonNode body = "GET".equals(ex.getRequestMethod()) ? null : readBody(ex);
            synchronized (this) {
                advance();
                switch (key) {
                    case "GET /v1/topology":
                        respond(ex, 200, topology());
                        return;
                    case "GET /v1/counters":
                        respond(ex, 200, counters());
                        return;
                    case "GET /v1/status":
                        respond(ex, 200, mapper.createObjectNode().put("version", 1).put("mode", "realtime")
                                .put("timeUs", lastUs).put("lagUs", 3).put("maxLagUs", 40).put("timeslots", 1)
                                .put("unmatched", unmatched).put("mirrorFrames", 0).put("mirrorDrops", 0));
                        return;
                    case "POST /v1/rules":
                        applyRules(ex, body);
                        return;
                    case "PUT /v1/mirrors":
                        mirrorConfigs.add(body);
                        respond(ex, 200, mapper.createObjectNode().put("version", 1));
                        return;
                    case "POST /v1/flows":
                        startFlows(ex, body);
                        return;
                    case "GET /v1/flows":
                        respond(ex, 200, flowList());
                        return;
                    case "POST /v1/shutdown":
                        shutdown = true;
                        ex.sendResponseHeaders(204, -1);
                        return;
                    default:
                        error(ex, 404, "no such resource: " + key);
                }
            }
        } catch (RuntimeException e) {
            error(ex, 400, String.valueOf(e.getMessage()));
        } finally {
            ex.close();
        }
    }

    private JsonNode readBody(HttpExchange ex) throws IOException {
        byte[] b = ex.getRequestBody().readAllBytes();
        return b.length == 0 ? null : mapper.readTree(b);
    }

    private ObjectNode topology() {
        ObjectNode t = mapper.createObjectNode().put("version", 1).put("linkBps", linkBps);
        ArrayNode s = t.putArray("switches");
        switches.forEach((id, ports) -> {
            ObjectNode n = s.addObject().put("id", id).put("role", roles.get(id));
            ArrayNode ps = n.putArray("ports");
            ports.forEach(ps::add);
        });
        ArrayNode l = t.putArray("links");
        links.forEach((a, b) -> l.addObject().put("src", a.split("\\|")[0]).put("srcPort", Long.parseLong(a.split("\\|")[1]))
                .put("dst", b.split("\\|")[0]).put("dstPort", Long.parseLong(b.split("\\|")[1])).put("capacityBps", linkBps));
        ArrayNode h = t.putArray("hosts");
        for (Host x : hosts) {
            h.addObject().put("mac", x.mac).put("ip", x.ip).put("switch", x.sw).put("port", x.port);
        }
        return t;
    }

    private ObjectNode counters() {
        ObjectNode c = mapper.createObjectNode().put("version", 1).put("timeUs", lastUs);
        ArrayNode ports = c.putArray("ports");
        switches.forEach((id, ps) -> ps.forEach(p -> ports.addObject().put("switch", id).put("port", p)
                .put("txBytes", txBytes.getOrDefault(id + "|" + p, 0L)).put("txPackets", 0).put("drops", 0)
                .put("queueBytes", 0)));
        ArrayNode rs = c.putArray("rules");
        rules.forEach((id, list) -> {
            for (Rule r : list) {
                ObjectNode n = rs.addObject().put("switch", id).put("priority", r.priority);
                ObjectNode m = n.putObject("match");
                r.match.forEach((k, v) -> {
                    if (k.equals("proto") || k.endsWith("port") || k.equals("inPort")) {
                        m.put(k, Long.parseLong(v));
                    } else {
                        m.put(k, v);
                    }
                });
                n.put("bytes", r.bytes).put("packets", r.bytes / 1500);
            }
        });
        return c;
    }

    private void applyRules(HttpExchange ex, JsonNode body) throws IOException {
        if (refuseRules) {
            ruleBatches.add(body);
            error(ex, 503, "rules refused");
            return;
        }
        if (body == null || body.path("version").asInt() != 1 || !body.path("ops").isArray()) {
            error(ex, 400, "rules body must be version 1 with ops");
            return;
        }
        Map<String, List<Rule>> next = new HashMap<>();
        rules.forEach((k, v) -> next.put(k, new ArrayList<>(v)));
        for (JsonNode op : body.get("ops")) {
            String s = op.path("switch").asText();
            if (!next.containsKey(s)) {
                error(ex, 400, "unknown switch " + s);
                return;
            }
            Map<String, String> match = new TreeMap<>();
            Iterator<Map.Entry<String, JsonNode>> it = op.path("match").fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                match.put(e.getKey(), e.getValue().asText().toLowerCase());
            }
            int prio = op.path("priority").asInt();
            List<Rule> list = next.get(s);
            Rule same = null;
            for (Rule r : list) {
                if (r.priority == prio && r.match.equals(match)) {
                    same = r;
                }
            }
            if ("delete".equals(op.path("op").asText())) {
                if (same == null) {
                    error(ex, 400, "delete of a missing rule on " + s);
                    return;
                }
                list.remove(same);
                continue;
            }
            JsonNode a = op.path("actions");
            if (!a.path("output").isIntegralNumber()) {
                error(ex, 400, "actions.output is required");
                return;
            }
            for (Rule r : list) {
                if (r != same && r.priority == prio && overlaps(r.match, match)) {
                    error(ex, 400, "equal-priority overlapping rules on " + s + ": " + r.match + " and " + match);
                    return;
                }
            }
            Rule added = new Rule(prio, match, a.has("setEthDst") ? a.get("setEthDst").asText().toLowerCase() : null,
                                  a.get("output").asLong());
            if (same != null) {
                added.bytes = same.bytes;
                list.remove(same);
            }
            list.add(added);
        }
        rules.clear();
        rules.putAll(next);
        ruleBatches.add(body);
        respond(ex, 200, mapper.createObjectNode().put("version", 1).put("applied", body.get("ops").size())
                .put("appliedUs", LabController.nowUs()));
    }

    private static boolean overlaps(Map<String, String> a, Map<String, String> b) {
        for (Map.Entry<String, String> e : a.entrySet()) {
            String v = b.get(e.getKey());
            if (v != null && !v.equals(e.getValue())) {
                return false;
            }
        }
        return true;
    }

    private void startFlows(HttpExchange ex, JsonNode body) throws IOException {
        long now = LabController.nowUs();
        for (JsonNode f : body.path("flows")) {
            Host s = host(f.path("src").asText());
            Host d = host(f.path("dst").asText());
            if (s == null || d == null) {
                error(ex, 400, "unknown host in flow " + f.path("id"));
                return;
            }
            long id = f.path("id").asLong();
            flows.put(id, new Flow(id, s, d, f.path("bytes").asLong(), f.path("sport").asInt(),
                                   f.path("dport").asInt(), now + f.path("startUs").asLong()));
        }
        respond(ex, 200, mapper.createObjectNode().put("version", 1).put("started", body.path("flows").size()));
    }

    private ObjectNode flowList() {
        ObjectNode o = mapper.createObjectNode().put("version", 1);
        ArrayNode a = o.putArray("flows");
        for (Flow f : flows.values()) {
            a.addObject().put("id", f.id).put("src", f.src.mac).put("dst", f.dst.mac).put("bytes", f.bytes)
                    .put("startUs", f.startUs).put("finishUs", Math.max(0, f.finishUs)).put("sentBytes", (long) f.sent)
                    .put("done", f.finishUs >= 0);
        }
        return o;
    }

    private void error(HttpExchange ex, int code, String message) throws IOException {
        respond(ex, code, mapper.createObjectNode().put("code", code).put("message", message));
    }

    private void respond(HttpExchange ex, int code, JsonNode body) throws IOException {
        byte[] b = mapper.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(code, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

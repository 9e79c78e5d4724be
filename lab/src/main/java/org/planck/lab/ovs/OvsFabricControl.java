package org.planck.lab.ovs;

import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.PathHop;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowPathId;
import org.planck.app.routing.algo.FatTreeFabric;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;
import org.planck.lab.openflow.FlowCounter;
import org.planck.lab.openflow.FlowModTranslation;
import org.planck.lab.openflow.InstallResult;
import org.planck.lab.openflow.OpenFlowSouthbound;
import org.planck.lab.openflow.PortCounters;
import org.planck.lab.openflow.RuleRejection;
import org.planck.lab.openflow.SwitchListener;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The OpenFlow controller of the OVS fat tree, driven line by line on stdin (one answer line per
 * command on stdout, starting {@code ok} or {@code fail}; switch events go to stderr). It installs
 * the app's routing plan for a k-ary fat tree, steers traffic onto chosen shadow paths with
 * per-flow rules, and checks every rule's flow counter against the path each packet must take.
 *
 * <p>Commands: {@code await S}, {@code force I}, {@code unforce}, {@code baseline},
 * {@code check PINGS}, {@code move SRC DST PROTO SPORT DPORT I}, {@code pathof SRC DST PROTO SPORT DPORT},
 * {@code ruleof SRC DST PROTO SPORT DPORT},
 * {@code forwardingmap FILE GENERATION LINK_BPS}, {@code placestride SHIFT CPORT DPORT}, {@code portstats DEVICE}, {@code movebench SRC DST PROTO SPORT DPORT N}, {@code pathpackets SRC DST PROTO
 * SPORT DPORT I}, {@code refuse}, {@code wanted DEVICE}, {@code events}, {@code quit}.</p>
 */
@Command(name = "ovs-fabric-control", mixinStandardHelpOptions = true,
        description = "OpenFlow controller of the OVS fat tree, driven on stdin")
public final class OvsFabricControl implements Callable<Integer> {
    private static final int ICMP = 1;
    private static final Duration BATCH_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration STATS_SETTLE = Duration.ofSeconds(4);

    @Option(names = "--port", required = true, description = "TCP port to listen on (127.0.0.1)")
    private int port;

    @Option(names = "--k", defaultValue = "4", description = "fat-tree arity")
    private int k;

    @Option(names = "--paths", defaultValue = "4", description = "shadow paths per destination")
    private int paths;

    private final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    private final AtomicLong connectedEvents = new AtomicLong();
    private final AtomicLong disconnectedEvents = new AtomicLong();
    private final AtomicLong programmedEvents = new AtomicLong();
    private final AtomicLong rejectedEvents = new AtomicLong();
    private RoutingPlan plan;
    private OpenFlowSouthbound southbound;
    private final Map<String, FabricHost> hostsByIp = new LinkedHashMap<>();
    private final List<PlannedRule> extras = new ArrayList<>();
    private Map<DeviceId, Map<String, Long>> baseline = new HashMap<>();

    public static void main(String[] args) {
        System.exit(new CommandLine(new OvsFabricControl()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (k < 2 || k % 2 != 0 || k > 16) {
            System.err.println("--k must be even, 2..16: " + k);
            return 2;
        }
        FatTreeFabric fabric = FatTreeFabric.of(k);
        plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), paths).plan(fabric.graph());
        for (FabricHost h : plan.graph().hosts()) {
            hostsByIp.put(h.ips().iterator().next().toString(), h);
        }
        southbound = new OpenFlowSouthbound(new EventLog());
        southbound.start(new InetSocketAddress("127.0.0.1", port));
        for (Map.Entry<DeviceId, List<PlannedRule>> e : plan.rulesByDevice().entrySet()) {
            // Nobody is connected yet: this only records the wanted rules; each switch gets them on connect.
            southbound.install(e.getKey(), e.getValue(), List.of());
        }
        System.err.println("listening on 127.0.0.1:" + port + ", plan: " + plan);
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] w = line.trim().split("\\s+");
                if (w[0].isEmpty()) {
                    continue;
                }
                if (w[0].equals("quit")) {
                    break;
                }
                try {
                    out.println(execute(w));
                } catch (RuntimeException e) {
                    out.println("fail " + e.getClass().getSimpleName() + ": " + e.getMessage());
                }
            }
        } finally {
            southbound.close();
        }
        return 0;
    }

    private String execute(String[] w) throws Exception {
        switch (w[0]) {
            case "await":
                return await(Integer.parseInt(w[1]));
            case "force":
                return force(Integer.parseInt(w[1]));
            case "unforce":
                return unforce();
            case "baseline":
                baseline = snapshot();
                return "ok baseline of " + baseline.size() + " switches";
            case "check":
                return check(Long.parseLong(w[1]));
            case "move":
                return move(flowOf(w), Integer.parseInt(w[6]));
            case "pathof":
                return pathOf(flowOf(w));
            case "ruleof":
                return ruleOf(flowOf(w));
            case "pathpackets":
                return pathPackets(flowOf(w), Integer.parseInt(w[6]));
            case "portstats":
                return portStats(DeviceId.deviceId(w[1]));
            case "movebench":
                return moveBench(flowOf(w), Integer.parseInt(w[6]));
            case "forwardingmap":
                return forwardingMap(java.nio.file.Path.of(w[1]), Long.parseLong(w[2]), Long.parseLong(w[3]));
            case "placestride":
                return placeStride(Integer.parseInt(w[1]), Integer.parseInt(w[2]), Integer.parseInt(w[3]));
            case "refuse":
                return refuse();
            case "wanted":
                return "ok " + southbound.wantedRules(DeviceId.deviceId(w[1])).size();
            case "events":
                return "ok connected=" + connectedEvents + " disconnected=" + disconnectedEvents
                        + " programmed=" + programmedEvents + " rejected=" + rejectedEvents;
            default:
                return "fail unknown command " + w[0];
        }
    }

    private String await(int seconds) throws InterruptedException {
        List<DeviceId> all = new ArrayList<>(plan.rulesByDevice().keySet());
        long t0 = System.nanoTime();
        if (!southbound.awaitProgrammed(all, Duration.ofSeconds(seconds))) {
            List<DeviceId> missing = new ArrayList<>(all);
            missing.removeAll(southbound.connected());
            return "fail not programmed within " + seconds + " s; not connected: " + missing;
        }
        return "ok programmed " + all.size() + " switches, " + plan.ruleCount() + " rules (waited "
                + (System.nanoTime() - t0) / 1_000_000 + " ms)";
    }

    private FlowKey icmp(FabricHost s, FabricHost d) {
        return FlowKey.of(s.ips().iterator().next(), d.ips().iterator().next(), ICMP, 0, 0);
    }

    private String force(int index) throws Exception {
        if (!extras.isEmpty()) {
            unforce();
        }
        Map<DeviceId, List<PlannedRule>> byEdge = new LinkedHashMap<>();
        int skipped = 0;
        for (FabricHost s : plan.graph().hosts()) {
            for (FabricHost d : plan.graph().hosts()) {
                if (s.edge().equals(d.edge())) {
                    continue;
                }
                boolean usable = plan.usableTrees(s.edge(), d.mac()).stream().anyMatch(t -> t.index() == index);
                if (!usable) {
                    skipped++;
                    continue;
                }
                PlannedRule r = plan.flowRule(icmp(s, d), s.mac(), d.mac(), index);
                byEdge.computeIfAbsent(r.device(), x -> new ArrayList<>()).add(r);
            }
        }
        long worst = installAll(byEdge, true);
        byEdge.values().forEach(extras::addAll);
        baseline = snapshot();
        return "ok forced " + extras.size() + " host pairs' ICMP onto path " + index + " (" + skipped
                + " pairs have no such path), all in force after " + worst / 1000 + " us";
    }

    private String unforce() throws Exception {
        Map<DeviceId, List<PlannedRule>> byEdge = new LinkedHashMap<>();
        extras.forEach(r -> byEdge.computeIfAbsent(r.device(), x -> new ArrayList<>()).add(r));
        installAll(byEdge, false);
        int n = extras.size();
        extras.clear();
        baseline = snapshot();
        return "ok removed " + n + " per-flow rules";
    }

    /** Installs (or removes) rule batches on several switches at once; returns the slowest batch's time to barrier. */
    private long installAll(Map<DeviceId, List<PlannedRule>> byDevice, boolean add) throws Exception {
        List<CompletableFuture<InstallResult>> fs = new ArrayList<>();
        for (Map.Entry<DeviceId, List<PlannedRule>> e : byDevice.entrySet()) {
            fs.add(add ? southbound.install(e.getKey(), e.getValue(), List.of())
                       : southbound.install(e.getKey(), List.of(), e.getValue()));
        }
        long worst = 0;
        for (CompletableFuture<InstallResult> f : fs) {
            InstallResult r = f.get(BATCH_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            if (!r.allInForce()) {
                throw new IllegalStateException("refused: " + r.rejections());
            }
            worst = Math.max(worst, r.inForceNanos() - r.sentNanos());
        }
        return worst;
    }

    private static String counterKey(org.projectfloodlight.openflow.protocol.match.Match m, int priority) {
        return priority + "/" + m;
    }

    private Map<DeviceId, Map<String, Long>> snapshot() throws Exception {
        Map<DeviceId, CompletableFuture<List<FlowCounter>>> fs = new LinkedHashMap<>();
        for (DeviceId d : plan.rulesByDevice().keySet()) {
            fs.put(d, southbound.flowStats(d));
        }
        Map<DeviceId, Map<String, Long>> snap = new HashMap<>();
        for (Map.Entry<DeviceId, CompletableFuture<List<FlowCounter>>> e : fs.entrySet()) {
            Map<String, Long> m = new HashMap<>();
            for (FlowCounter c : e.getValue().get(BATCH_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                m.put(counterKey(c.match(), c.priority()), c.packets());
            }
            snap.put(e.getKey(), m);
        }
        return snap;
    }

    /**
     * Every host pinged every other host {@code pings} times since the baseline: every rule of every
     * switch must have counted exactly the packets whose path crosses it, and nothing else.
     */
    private String check(long pings) throws Exception {
        PathTraffic traffic = new PathTraffic(plan, extras);
        Map<PlannedRule, Long> expected = new HashMap<>();
        int pairs = 0;
        for (FabricHost s : plan.graph().hosts()) {
            for (FabricHost d : plan.graph().hosts()) {
                if (!s.equals(d)) {
                    // s's pings to d and d's replies to s's... each direction carries requests and replies.
                    traffic.add(expected, s, d, icmp(s, d), 2 * pings);
                    pairs++;
                }
            }
        }
        // OVS folds datapath counters into its rules' counters every few hundred ms: wait for them
        // to settle (they only grow), at most STATS_SETTLE.
        long deadline = System.nanoTime() + STATS_SETTLE.toNanos();
        List<String> wrong;
        int[] checked = new int[1];
        Map<DeviceId, Map<String, Long>> now;
        do {
            Thread.sleep(200);
            now = snapshot();
            wrong = compare(now, expected, checked);
        } while (!wrong.isEmpty() && System.nanoTime() < deadline);
        if (!wrong.isEmpty()) {
            return "fail " + wrong.size() + " counters off (" + checked[0] + " checked): "
                    + String.join("; ", wrong.subList(0, Math.min(4, wrong.size())));
        }
        return "ok " + checked[0] + " rule counters on " + now.size() + " switches match the paths of " + pairs
                + " host pairs";
    }

    private List<String> compare(Map<DeviceId, Map<String, Long>> now, Map<PlannedRule, Long> expected,
                                 int[] checked) {
        List<String> wrong = new ArrayList<>();
        checked[0] = 0;
        for (DeviceId d : plan.rulesByDevice().keySet()) {
            Map<String, Long> before = baseline.getOrDefault(d, Map.of());
            Map<String, Long> after = now.get(d);
            List<PlannedRule> wanted = southbound.wantedRules(d);
            if (after.size() != wanted.size()) {
                wrong.add(d + " holds " + after.size() + " flows, wanted " + wanted.size());
            }
            for (PlannedRule r : wanted) {
                String key = counterKey(FlowModTranslation.match(r), r.priority());
                Long a = after.get(key);
                if (a == null) {
                    wrong.add("missing on switch: " + r);
                    continue;
                }
                long delta = a - before.getOrDefault(key, 0L);
                long want = expected.getOrDefault(r, 0L);
                checked[0]++;
                if (delta != want) {
                    wrong.add(r + " counted " + delta + ", path says " + want);
                }
            }
        }
        return wrong;
    }

    private FlowKey flowOf(String[] w) {
        return FlowKey.of(IpAddress.valueOf(w[1]), IpAddress.valueOf(w[2]), Integer.parseInt(w[3]),
                          Integer.parseInt(w[4]), Integer.parseInt(w[5]));
    }

    private FabricHost host(IpAddress ip) {
        FabricHost h = hostsByIp.get(ip.toString());
        if (h == null) {
            throw new IllegalArgumentException("no host " + ip);
        }
        return h;
    }

    private String move(FlowKey flow, int index) throws Exception {
        FabricHost s = host(flow.src());
        FabricHost d = host(flow.dst());
        PlannedRule r = plan.flowRule(flow, s.mac(), d.mac(), index);
        InstallResult res;
        try {
            res = southbound.install(r.device(), List.of(r), List.of()).get(BATCH_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof org.planck.lab.openflow.SwitchUnavailableException)) {
                throw e;
            }
            // Not in force, and said so; the southbound keeps it wanted: it goes in on reconnect.
            extras.removeIf(x -> x.matchKey().equals(r.matchKey()));
            extras.add(r);
            return "unavailable " + e.getCause().getMessage() + "; kept, goes in on reconnect";
        }
        if (!res.allInForce()) {
            return "fail refused: " + res.rejections();
        }
        extras.removeIf(x -> x.matchKey().equals(r.matchKey()));
        extras.add(r);
        return "ok moved onto path " + index + " in force after " + (res.inForceNanos() - res.sentNanos()) / 1000
                + " us via " + hopsOf(plan.path(s.mac(), d.mac(), index).orElseThrow());
    }

    /** Port counters of one switch over OpenFlow (what the Poll baseline reads): "port:rx/tx packets" each. */
    private String portStats(DeviceId device) throws Exception {
        StringBuilder b = new StringBuilder("ok");
        for (PortCounters c : southbound.portStats(device).get(BATCH_TIMEOUT.toSeconds(), TimeUnit.SECONDS).values()) {
            if (c.port() < 0xffffff00L) {
                b.append(' ').append(c.port()).append(':').append(c.rxPackets()).append('/').append(c.txPackets());
            }
        }
        return b.toString();
    }

    /**
     * Moves one flow back and forth between its default path and another {@code n} times, one
     * flow-mod and barrier each, and reports the flow-mod-to-barrier-reply time (when the move is
     * in force on the switch) as percentiles.
     */
    private String moveBench(FlowKey flow, int n) throws Exception {
        FabricHost s = host(flow.src());
        FabricHost d = host(flow.dst());
        int def = plan.defaultPathIndex(s.mac(), d.mac()).orElseThrow();
        long[] us = new long[n];
        for (int i = 0; i < n; i++) {
            int index = i % 2 == 0 ? (def + 1) % paths : def;
            PlannedRule r = plan.flowRule(flow, s.mac(), d.mac(), index);
            InstallResult res = southbound.install(r.device(), List.of(r), List.of())
                    .get(BATCH_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            if (!res.allInForce()) {
                return "fail refused: " + res.rejections();
            }
            us[i] = (res.inForceNanos() - res.sentNanos()) / 1000;
        }
        PlannedRule last = plan.flowRule(flow, s.mac(), d.mac(), def);
        southbound.install(last.device(), List.of(), List.of(last)).get(BATCH_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        java.util.Arrays.sort(us);
        return "ok " + n + " moves, flow-mod to barrier reply us: p50 " + us[n / 2] + " p90 " + us[n * 9 / 10]
                + " p99 " + us[Math.min(n - 1, n * 99 / 100)] + " max " + us[n - 1];
    }

    /**
     * The RSPAN VLAN of a bridge: its switch id tier*100 + pod*10 + index, from the datapath id
     * FatTreeFabric gives it ({@code of:<10 hex tier><2 hex pod><4 hex index>}).
     *
     * @param device switch
     * @return VLAN id
     */
    static int rspanVlan(DeviceId device) {
        long dpid = Long.parseUnsignedLong(device.toString().substring(3), 16);
        return (int) ((dpid >>> 24) * 100 + ((dpid >>> 16) & 0xff) * 10 + (dpid & 0xffff));
    }

    /**
     * Writes the collector's forwarding map (forwarding-map-v1) for the OVS fabric: every switch
     * with its RSPAN VLAN, mirror port k+1, ports 1..k at {@code linkBps}, and the plan's
     * (MAC -> port) entries.
     */
    private String forwardingMap(java.nio.file.Path file, long generation, long linkBps) throws Exception {
        org.planck.api.fabric.ForwardingMap egress = org.planck.api.fabric.ForwardingMap.of(plan);
        List<org.planck.api.SwitchForwarding> switches = new ArrayList<>();
        for (DeviceId d : plan.rulesByDevice().keySet()) {
            List<org.planck.api.PortCapacity> ports = new ArrayList<>();
            for (int p = 1; p <= k; p++) {
                ports.add(new org.planck.api.PortCapacity(PortNumber.portNumber(p), linkBps));
            }
            switches.add(new org.planck.api.SwitchForwarding(d, org.onlab.packet.VlanId.vlanId((short) rspanVlan(d)),
                                                             PortNumber.portNumber(k + 1), ports, egress.entries(d)));
        }
        com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        org.planck.api.CollectorForwardingMap map =
                new org.planck.api.CollectorForwardingMap("ovs-fabric", generation, switches);
        java.nio.file.Files.write(file, mapper.writeValueAsBytes(org.planck.api.ForwardingMapCodec.encode(map, mapper)));
        return "ok " + switches.size() + " switches, " + egress.size() + " entries -> " + file;
    }

    /**
     * Places the flows of stride(SHIFT) (host i to host i+SHIFT, hosts in FatTreeFabric order, TCP
     * from port CPORT+i to DPORT+i) one by one on the shadow path whose busiest egress port
     * carries the fewest flows placed so far, with per-flow rules: a link-aware placement to set
     * beside the hash placement (Static) on the same fabric.
     */
    private String placeStride(int shift, int cport, int dport) throws Exception {
        List<FabricHost> hosts = new ArrayList<>(plan.graph().hosts());
        hosts.sort(java.util.Comparator.comparingLong(h -> h.mac().toLong()));
        Map<org.onosproject.net.ConnectPoint, Integer> load = new HashMap<>();
        Map<DeviceId, List<PlannedRule>> byEdge = new LinkedHashMap<>();
        int worst = 0;
        for (int i = 0; i < hosts.size(); i++) {
            FabricHost s = hosts.get(i);
            FabricHost d = hosts.get((i + shift) % hosts.size());
            if (s.edge().equals(d.edge())) {
                continue;
            }
            FlowKey f = FlowKey.of(s.ips().iterator().next(), d.ips().iterator().next(), 6, cport + i, dport + i);
            ShadowPath best = null;
            int bestLoad = Integer.MAX_VALUE;
            for (org.planck.api.fabric.ShadowTree t : plan.usableTrees(s.edge(), d.mac())) {
                ShadowPath p = plan.path(s.mac(), d.mac(), t.index()).orElseThrow();
                int l = 0;
                for (org.onosproject.net.ConnectPoint cp : p.egressPorts()) {
                    l = Math.max(l, load.getOrDefault(cp, 0));
                }
                if (l < bestLoad) {
                    best = p;
                    bestLoad = l;
                }
            }
            for (org.onosproject.net.ConnectPoint cp : best.egressPorts()) {
                worst = Math.max(worst, load.merge(cp, 1, Integer::sum));
            }
            PlannedRule r = plan.flowRule(f, s.mac(), d.mac(), best.index());
            byEdge.computeIfAbsent(r.device(), x -> new ArrayList<>()).add(r);
            extras.add(r);
        }
        long t = installAll(byEdge, true);
        return "ok placed " + byEdge.values().stream().mapToInt(List::size).sum() + " flows, at most " + worst
                + " per egress port, in force after " + t / 1000 + " us";
    }

    /** The shadow path index a flow takes now, and its switches. */
    private String pathOf(FlowKey flow) {
        ShadowPath p = new PathTraffic(plan, extras).pathOf(host(flow.src()), host(flow.dst()), flow)
                .orElseThrow(() -> new IllegalArgumentException("same-edge hosts have no shadow path"));
        return "ok " + p.index() + " " + hopsOf(p);
    }

    /** The per-flow rule the controller wants for a flow: "ok DEVICE SHADOW_MAC OUT_PORT". */
    private String ruleOf(FlowKey flow) {
        for (PlannedRule r : extras) {
            if (r.flow().map(flow::equals).orElse(false)) {
                return "ok " + r.device() + " " + r.setEthDst().map(m -> m.toString().toLowerCase()).orElse("-")
                        + " " + r.outPort().toLong();
            }
        }
        return "fail no per-flow rule for " + flow;
    }

    private static String hopsOf(ShadowPath p) {
        StringBuilder b = new StringBuilder();
        for (PathHop h : p.hops()) {
            b.append(b.length() == 0 ? "" : ",").append(h.device());
        }
        return b.toString();
    }

    /** Packets counted by the tree rules of path {@code index} from the flow's source edge, hop by hop. */
    private String pathPackets(FlowKey flow, int index) throws Exception {
        FabricHost s = host(flow.src());
        FabricHost d = host(flow.dst());
        ShadowPath p = plan.path(s.mac(), d.mac(), index)
                .orElseThrow(() -> new IllegalArgumentException("no path " + index));
        StringBuilder b = new StringBuilder("ok");
        List<PathHop> hops = p.hops();
        for (int i = 1; i < hops.size(); i++) {
            DeviceId dev = hops.get(i).device();
            PlannedRule rule = i == hops.size() - 1 ? PlannedRule.shadowDelivery(d, p.id(), p.shadowMac())
                    : PlannedRule.shadowTransit(dev, p.id(), p.shadowMac(), hops.get(i).outPort());
            String key = counterKey(FlowModTranslation.match(rule), rule.priority());
            long n = 0;
            for (FlowCounter c : southbound.flowStats(dev).get(BATCH_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                if (counterKey(c.match(), c.priority()).equals(key)) {
                    n = c.packets();
                }
            }
            b.append(' ').append(dev).append('=').append(n);
        }
        return b.toString();
    }

    /**
     * Sends a rule the switch must refuse (an output port beyond OpenFlow's port range as OVS
     * supports it) and reports whether the refusal came back with that rule.
     */
    private String refuse() throws Exception {
        DeviceId edge = FatTreeFabric.edgeId(0, 0);
        MacAddress nowhere = MacAddress.valueOf("0e:00:00:00:ff:01");
        FabricHost anyHost = plan.graph().hosts().iterator().next();
        PlannedRule bad = PlannedRule.shadowTransit(edge, ShadowPathId.of(anyHost.mac(), 99), nowhere,
                                                    PortNumber.portNumber(70000));
        int before = southbound.wantedRules(edge).size();
        InstallResult res = southbound.install(edge, List.of(bad), List.of())
                .get(BATCH_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        int after = southbound.wantedRules(edge).size();
        if (res.allInForce()) {
            return "fail the switch accepted " + bad;
        }
        RuleRejection r = res.rejections().get(0);
        if (!r.rule().map(bad::equals).orElse(false) || after != before) {
            return "fail refusal not tied to the rule or the rule kept: " + r + ", wanted " + before + " -> " + after;
        }
        return "ok " + r;
    }

    private final class EventLog implements SwitchListener {
        private void log(String s) {
            System.err.println(System.currentTimeMillis() + " event " + s);
        }

        @Override
        public void connected(DeviceId device) {
            connectedEvents.incrementAndGet();
            log("connected " + device);
        }

        @Override
        public void disconnected(DeviceId device, String reason) {
            disconnectedEvents.incrementAndGet();
            log("disconnected " + device + ": " + reason);
        }

        @Override
        public void programmed(InstallResult result) {
            programmedEvents.incrementAndGet();
            log("programmed " + result);
        }

        @Override
        public void rejected(RuleRejection rejection) {
            rejectedEvents.incrementAndGet();
            log("rejected " + rejection);
        }
    }
}

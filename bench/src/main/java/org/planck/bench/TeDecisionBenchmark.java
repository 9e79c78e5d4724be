package org.planck.bench;

import org.onosproject.net.ConnectPoint;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.FlowMove;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.app.routing.algo.FatTreeFabric;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;
import org.planck.app.te.algo.CongestionRerouter;
import org.planck.app.te.algo.FabricLoad;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalDouble;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * TE decision latency per congestion event: k=16 fat tree (1,024 hosts, 4 shadow paths each),
 * 10,000 active flows placed by the default hash choice with rates uniform in [0, 100] MB/s on
 * 10 Gb/s links. Each invocation is one congestion notice on one of the 64 most loaded links:
 * choose the moves and build their per-flow ingress rules (what the controller then submits).
 * The moves are undone between invocations, outside the measurement. Target p99 &lt;= 100 us.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(value = 1, jvmArgs = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class TeDecisionBenchmark {

    @Param({"10000"})
    public int flows;

    @Param({"0.5"})
    public double threshold;

    private RoutingPlan plan;
    private FabricLoad load;
    private CongestionRerouter te;
    private final List<ConnectPoint> hotLinks = new ArrayList<>();
    private int next;
    private long now;
    private ConnectPoint lastPort;
    private List<FlowMove> lastMoves = List.of();
    private long totalMoves;
    private long events;

    @Setup(Level.Trial)
    public void buildScenario() {
        FatTreeFabric fabric = FatTreeFabric.of(16);
        plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4).plan(fabric.graph());
        load = new FabricLoad(plan);
        List<FabricHost> hosts = new ArrayList<>(fabric.graph().hosts());
        Random r = new Random(42);
        int placed = 0;
        while (placed < flows) {
            FabricHost s = hosts.get(r.nextInt(hosts.size()));
            FabricHost d = hosts.get(r.nextInt(hosts.size()));
            if (s.edge().equals(d.edge())) {
                continue;
            }
            FlowKey key = FlowKey.of(s.ips().iterator().next(), d.ips().iterator().next(), 6,
                                     1024 + r.nextInt(60000), 5001);
            int index = plan.defaultPathIndex(s.mac(), d.mac()).getAsInt();
            load.place(key, FlowPlacement.of(s.mac(), d.mac(), index, r.nextDouble() * 100e6));
            placed = load.flowCount();
        }
        List<ConnectPoint> links = new ArrayList<>();
        for (FabricLink l : fabric.graph().links()) {
            links.add(l.src());
        }
        links.sort(Comparator.comparingDouble(p -> -load.utilisation(p)));
        for (ConnectPoint p : links.subList(0, 64)) {
            if (load.utilisation(p) > threshold) {
                hotLinks.add(p);
            }
        }
        if (hotLinks.isEmpty()) {
            throw new IllegalStateException("scenario has no congested link");
        }
        te = new CongestionRerouter(load, threshold, 50_000_000L);
    }

    /** Undoes the previous event's moves so every event starts from the same placements. */
    @Setup(Level.Invocation)
    public void nextEvent() {
        for (FlowMove m : lastMoves) {
            load.place(m.flow(), m.from());
            te.forget(m.flow());
        }
        if (lastPort != null) {
            te.clearCongested(lastPort);
        }
        lastMoves = List.of();
        lastPort = hotLinks.get(next);
        next = (next + 1) % hotLinks.size();
        now += 1_000_000L;
    }

    @Benchmark
    public List<PlannedRule> relieveCongestedPort() {
        List<FlowMove> moves = te.relieve(lastPort, OptionalDouble.empty(), now);
        List<PlannedRule> rules = new ArrayList<>(moves.size());
        for (FlowMove m : moves) {
            rules.add(plan.flowRule(m.flow(), m.from().src(), m.from().dst(), m.toIndex()));
        }
        lastMoves = moves;
        totalMoves += moves.size();
        events++;
        return rules;
    }

    @org.openjdk.jmh.annotations.TearDown(Level.Trial)
    public void report() {
        System.out.printf("%n%d congested links, %d events, %.2f moves per event%n",
                          hotLinks.size(), events, events == 0 ? 0.0 : (double) totalMoves / events);
    }

}

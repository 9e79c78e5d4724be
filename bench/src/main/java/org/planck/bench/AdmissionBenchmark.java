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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.planck.api.admission.GuaranteeHop;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.PathHop;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowTree;
import org.planck.app.admission.algo.AdmissionPlanner;
import org.planck.app.admission.algo.AdmissionVerdict;
import org.planck.app.admission.algo.FlowDemand;
import org.planck.app.admission.algo.GuaranteePath;
import org.planck.app.admission.algo.SwitchModel;
import org.planck.app.routing.algo.FatTreeFabric;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Admission decision latency: k=8 fat tree (128 hosts, 80 switches, 4 shadow paths per pair),
 * 1,000 flows already admitted under a shared-switch model (both scopes) (1 GB/s, 50 us per switch; flows
 * 0.5-2 MB/s, 1.5-6 kB bursts, 5-20 ms deadlines, random host pairs, seed 42). Each invocation
 * decides one new request between a random host pair: resolve its shadow paths into hops and
 * run the network-calculus check over every admitted flow until a path fits. The request is
 * not kept, so every invocation sees the same 1,000 flows. Target p99 &lt;= 1 ms.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(value = 1, jvmArgs = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
public class AdmissionBenchmark {

    @Param({"1000"})
    public int admitted;

    /** The app's default (any order) and Loko's FIFO shared switch. */
    @Param({"SHARED_SWITCH_ANY_ORDER", "SHARED_SWITCH"})
    public String scope;

    private static final SwitchModel MODEL = new SwitchModel(1_000_000_000L, 50_000, 0, 100_000_000, 0, 0);
    private RoutingPlan plan;
    private AdmissionPlanner planner;
    private final List<FabricHost[]> requests = new ArrayList<>();
    private final List<FlowDemand> demands = new ArrayList<>();
    private int next;
    private long accepted;
    private long decided;

    @Setup(Level.Trial)
    public void admitFlows() {
        FatTreeFabric fabric = FatTreeFabric.of(8);
        plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4).plan(fabric.graph());
        planner = new AdmissionPlanner(d -> MODEL, AdmissionPlanner.Scope.valueOf(scope), 1500);
        List<FabricHost> hosts = new ArrayList<>(fabric.graph().hosts());
        Random r = new Random(42);
        int tries = 0;
        while (planner.size() < admitted) {
            if (++tries > admitted * 10) {
                throw new IllegalStateException("could only admit " + planner.size() + " flows");
            }
            FabricHost[] pair = pair(hosts, r);
            FlowDemand d = demand(r);
            AdmissionVerdict v = planner.evaluate(d, candidates(pair[0], pair[1]));
            if (v.admitted()) {
                planner.admit("f" + planner.size(), d, v.path().orElseThrow());
            }
        }
        for (int i = 0; i < 1024; i++) {
            requests.add(pair(hosts, r));
            demands.add(demand(r));
        }
        System.out.printf("%n%d flows admitted in %d tries%n", planner.size(), tries);
    }

    private static FabricHost[] pair(List<FabricHost> hosts, Random r) {
        while (true) {
            FabricHost s = hosts.get(r.nextInt(hosts.size()));
            FabricHost d = hosts.get(r.nextInt(hosts.size()));
            if (!s.edge().equals(d.edge())) {
                return new FabricHost[]{s, d};
            }
        }
    }

    private static FlowDemand demand(Random r) {
        return new FlowDemand(500_000 + r.nextInt(1_500_000), 1500 + r.nextInt(4500), 64, 1500,
                5_000_000 + r.nextInt(15_000_000));
    }

    /** The shadow paths of a pair as admission sees them (what the ONOS component does per request). */
    private List<GuaranteePath> candidates(FabricHost s, FabricHost d) {
        FabricGraph g = plan.graph();
        List<GuaranteePath> out = new ArrayList<>();
        for (ShadowTree t : plan.trees(d.mac())) {
            ShadowPath p = t.path(s.edge()).orElse(null);
            if (p == null) {
                continue;
            }
            List<GuaranteeHop> hops = new ArrayList<>(p.hops().size());
            for (PathHop h : p.hops()) {
                long cap = g.portCapacityBps(new ConnectPoint(h.device(), h.outPort())).orElseThrow();
                hops.add(GuaranteeHop.of(h.device(), h.outPort(), cap));
            }
            out.add(new GuaranteePath(p.index(), hops));
        }
        return out;
    }

    @Benchmark
    public AdmissionVerdict decideOneRequest() {
        FabricHost[] pair = requests.get(next);
        FlowDemand d = demands.get(next);
        next = (next + 1) & 1023;
        AdmissionVerdict v = planner.evaluate(d, candidates(pair[0], pair[1]));
        decided++;
        if (v.admitted()) {
            accepted++;
        }
        return v;
    }

    @TearDown(Level.Trial)
    public void report() {
        System.out.printf("%n%d decisions, %.1f%% would be admitted%n", decided,
                decided == 0 ? 0.0 : 100.0 * accepted / decided);
    }
}

package org.planck.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.ForwardingMap;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.RoutingUpdate;
import org.planck.app.routing.algo.FatTreeFabric;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;

import java.util.concurrent.TimeUnit;

/**
 * Computing all shadow trees and emitting every rule (tree hops, deliveries, host-pair ingress
 * defaults) for a k=16 fat tree: 320 switches, 1,024 hosts. Target: under 2 s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 5)
// The plan is a ~125 MB graph of long-lived objects (1.6M rules). With G1's default young
// sizing, evacuating a half-built plan dominates the time on a busy 2-core machine; a young
// generation that holds whole plans measures the computation. Override with -jvmArgs to compare.
@Fork(value = 1, jvmArgs = {"-Xms6g", "-Xmx6g", "-Xmn4g", "-XX:+AlwaysPreTouch"})
public class RoutingPlanBenchmark {

    @Param({"16"})
    public int k;

    @Param({"4"})
    public int pathsPerDestination;

    private FabricGraph graph;
    private FabricGraph withoutCoreLink;
    private ShadowRoutePlanner replanner;
    private RoutingPlan inForce;

    @Setup
    public void buildFabric() {
        graph = FatTreeFabric.of(k).graph();
        RoutingPlan check = plan();
        if (check.trees().size() != graph.hosts().size() * pathsPerDestination) {
            throw new IllegalStateException("unexpected plan " + check);
        }
        FabricLink coreLink = graph.egressLinks(FatTreeFabric.coreId(0)).get(0);
        withoutCoreLink = graph.toBuilder().removeBidirectionalLink(coreLink).build();
        replanner = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), pathsPerDestination);
        inForce = replanner.plan(graph);
    }

    private RoutingPlan plan() {
        return new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), pathsPerDestination).plan(graph);
    }

    /** Trees, shadow MACs and all rules. */
    @Benchmark
    public RoutingPlan planAllShadowPaths() {
        return plan();
    }

    /** Re-planning after one core link fails: affected trees rebuilt, rule diff computed. */
    @Benchmark
    public RoutingUpdate replanAfterCoreLinkFailure() {
        return replanner.replan(inForce, withoutCoreLink);
    }

    /** Trees, MACs, rules and the collectors' forwarding map. */
    @Benchmark
    public ForwardingMap planAndBuildForwardingMap() {
        return ForwardingMap.of(plan());
    }
}

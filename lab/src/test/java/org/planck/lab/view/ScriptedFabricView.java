package org.planck.lab.view;

import org.onlab.packet.IpAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.PortNumber;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.ShadowMacSpace;
import org.planck.api.te.Reroute;
import org.planck.app.routing.algo.FatTreeFabric;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A test fixture for the live view: the k=4 fat tree of the lab with loads, congested ports,
 * moves and latencies that the test sets. Also runnable ({@link #main}) so the browser test
 * can load the page against known data.
 */
public final class ScriptedFabricView implements FabricViewSource {
    final FabricGraph graph = FatTreeFabric.of(4).graph();
    final Map<ConnectPoint, Double> utilisation = new HashMap<>();
    final Set<ConnectPoint> congested = new HashSet<>();
    final List<Reroute> moves = new CopyOnWriteArrayList<>();
    volatile long[] latencies = new long[0];

    /** Egress port of the first link from the edge switch of pod 0 to its first aggregation switch. */
    ConnectPoint edgeUplink() {
        return firstLink(FatTreeFabric.edgeId(0, 0), FatTreeFabric.aggregationId(0, 0)).src();
    }

    /** Egress port of the first link from aggregation switch (0,0) to a core switch. */
    ConnectPoint aggUplink() {
        return firstLink(FatTreeFabric.aggregationId(0, 0), FatTreeFabric.coreId(0)).src();
    }

    FabricLink firstLink(org.onosproject.net.DeviceId from, org.onosproject.net.DeviceId to) {
        for (FabricLink l : graph.egressLinks(from)) {
            if (l.dstDevice().equals(to)) {
                return l;
            }
        }
        throw new IllegalStateException("no link " + from + " -> " + to);
    }

    static Reroute move(int i, ConnectPoint off, long latencyUs) {
        FlowKey f = FlowKey.of(IpAddress.valueOf("10.0.0.2"), IpAddress.valueOf("10.1.0.2"), 6, 40000 + i, 5201);
        return new Reroute(f, off, 0, 1 + i % 3, ShadowMacSpace.mac(i), latencyUs, 1_700_000_000_000L + i);
    }

    @Override
    public String mode() {
        return "PLANCK";
    }

    @Override
    public FabricGraph graph() {
        return graph;
    }

    @Override
    public double utilisation(ConnectPoint port) {
        return utilisation.getOrDefault(port, 0.0);
    }

    @Override
    public Set<ConnectPoint> congestedPorts() {
        return new HashSet<>(congested);
    }

    @Override
    public List<Reroute> moves() {
        return new ArrayList<>(moves);
    }

    @Override
    public long[] loopLatenciesUs() {
        return latencies.clone();
    }

    /**
     * Serves the page on 127.0.0.1:&lt;port&gt; (0: any) with a congested edge uplink at 95 %,
     * an aggregation uplink at 40 %, and then one more move every second; prints the URL.
     *
     * @param args [port]
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        ScriptedFabricView v = new ScriptedFabricView();
        ConnectPoint hot = v.edgeUplink();
        v.utilisation.put(hot, 0.95);
        v.congested.add(hot);
        v.utilisation.put(v.aggUplink(), 0.40);
        v.moves.add(move(0, hot, 850));
        v.latencies = new long[]{850, 900, 1200, 3100, 7000};
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        FabricViewServer s = FabricViewServer.start(new java.net.InetSocketAddress("127.0.0.1", port));
        s.show(v);
        System.out.println("fabric view: " + s.url());
        System.out.println("hot port: " + hot);
        System.out.flush();
        for (int i = 1; ; i++) {
            Thread.sleep(1000);
            v.moves.add(move(i, hot, 800 + 50 * i));
        }
    }

    static PortNumber port(long p) {
        return PortNumber.portNumber(p);
    }
}

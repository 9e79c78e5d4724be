package org.planck.lab.ovs;

import org.onosproject.net.DeviceId;
import org.planck.api.fabric.PlannedRule;
import org.planck.lab.experiment.FabricLauncher;
import org.planck.lab.experiment.FabricSpec;
import org.planck.lab.openflow.InstallResult;
import org.planck.lab.openflow.OpenFlowSouthbound;
import org.planck.lab.openflow.RuleRejection;
import org.planck.lab.openflow.SwitchListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gives the experiment runner the OVS lab's fabrics, one run at a time: the fat tree for Static,
 * Poll and PlanckTE, the single bridge for Optimal. The bridges stay up for the whole experiment
 * (they are built by {@code experiment.sh}); a run's "fresh fabric" is every rule deleted (barrier
 * confirmed), mirrors off, and a new control API over the same OpenFlow connections.
 */
public final class OvsFabricLauncher implements FabricLauncher, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OvsFabricLauncher.class);
    private static final Duration CONNECT_WAIT = Duration.ofSeconds(60);

    private final Map<FabricSpec.Shape, OvsLabFabric> fabrics = new EnumMap<>(FabricSpec.Shape.class);
    private final Map<FabricSpec.Shape, HostAgents> agents = new EnumMap<>(FabricSpec.Shape.class);
    private final Map<FabricSpec.Shape, OvsMirrors> mirrors = new EnumMap<>(FabricSpec.Shape.class);
    private final OpenFlowSouthbound southbound;
    private final Path agent;
    private final long linkBps;
    private final AtomicLong disconnects = new AtomicLong();
    private final AtomicLong rejections = new AtomicLong();
    private volatile boolean closing;
    /** Mirror every fat-tree run, not only PlanckTE's: {rate, buffer, snap length}, or null. */
    private long[] mirrorEveryRun;

    /**
     * Listens for the bridges' OpenFlow connections.
     *
     * @param prefix   name prefix of the bridges and namespaces
     * @param db       ovsdb-server socket ({@code unix:...})
     * @param agent    tcp-agent.py
     * @param linkBps  rate the fabric's links are shaped to
     * @param openflow address the bridges connect to
     * @throws InterruptedException if interrupted while binding
     */
    public OvsFabricLauncher(String prefix, String db, Path agent, long linkBps, InetSocketAddress openflow)
            throws InterruptedException {
        this.agent = agent;
        this.linkBps = linkBps;
        fabrics.put(FabricSpec.Shape.FAT_TREE, OvsLabFabric.fatTree(prefix, linkBps));
        fabrics.put(FabricSpec.Shape.SINGLE_SWITCH, OvsLabFabric.singleBridge(prefix, linkBps));
        fabrics.forEach((shape, f) -> {
            List<String> names = new ArrayList<>();
            f.bridges().forEach(b -> names.add(b.name()));
            mirrors.put(shape, new OvsMirrors(db, names));
        });
        southbound = new OpenFlowSouthbound(new SwitchListener() {
            @Override
            public void disconnected(DeviceId device, String reason) {
                if (closing) {
                    return;
                }
                disconnects.incrementAndGet();
                log.warn("{} disconnected: {}", device, reason);
            }

            @Override
            public void rejected(RuleRejection rejection) {
                rejections.incrementAndGet();
                log.warn("refused: {}", rejection);
            }
        });
        southbound.start(openflow);
    }

    /**
     * Switch disconnections seen so far.
     *
     * @return count
     */
    public long disconnects() {
        return disconnects.get();
    }

    /**
     * Flow-mods the switches refused so far.
     *
     * @return count
     */
    public long rejections() {
        return rejections.get();
    }

    /**
     * Mirrors the fat tree in every run, whatever the mode (so the switches' mirroring cost is the
     * same in every mode; PlanckTE's own mirror request then sets the same again).
     *
     * @param rateBps     mirror port rate
     * @param bufferBytes mirror port buffer
     * @param snapLen     snap length
     */
    public void mirrorEveryRun(long rateBps, long bufferBytes, int snapLen) {
        mirrorEveryRun = new long[]{rateBps, bufferBytes, snapLen};
    }

    @Override
    public RunningFabric start(FabricSpec spec) throws IOException {
        if (spec.linkBps() != linkBps) {
            throw new IOException("the OVS fabric's links are shaped to " + linkBps + " b/s, not " + spec.linkBps());
        }
        OvsLabFabric fabric = fabrics.get(spec.shape());
        List<DeviceId> devices = new ArrayList<>();
        fabric.bridges().forEach(b -> devices.add(b.device()));
        try {
            if (!southbound.awaitProgrammed(devices, CONNECT_WAIT)) {
                List<DeviceId> missing = new ArrayList<>(devices);
                missing.removeAll(southbound.connected());
                throw new IOException("OVS bridges not connected within " + CONNECT_WAIT.toSeconds() + " s: " + missing);
            }
            wipe(devices);
            mirrors.get(spec.shape()).set(List.of(), 0, 0, 0);
            if (mirrorEveryRun != null && spec.shape() == FabricSpec.Shape.FAT_TREE) {
                List<String> all = new ArrayList<>();
                fabric.bridges().forEach(b -> all.add(b.name()));
                mirrors.get(spec.shape()).set(all, mirrorEveryRun[0], mirrorEveryRun[1], (int) mirrorEveryRun[2]);
            }
            HostAgents hosts = agents.get(spec.shape());
            if (hosts == null) {
                hosts = new HostAgents(fabric, agent);
                agents.put(spec.shape(), hosts);
            }
            hosts.forget();
            String[] hp = spec.controlListen().split(":");
            OvsControlApi api = new OvsControlApi(fabric, southbound, hosts, mirrors.get(spec.shape()),
                                                  new InetSocketAddress(hp[0], Integer.parseInt(hp[1])));
            OvsMirrors m = mirrors.get(spec.shape());
            return new RunningFabric() {
                @Override
                public URI control() {
                    return api.uri();
                }

                @Override
                public void close() {
                    api.close();
                    try {
                        m.set(List.of(), 0, 0, 0);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException e) {
                        log.warn("mirrors not removed: {}", e.getMessage());
                    }
                }
            };
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Deletes every rule the switches hold (the last run's plan and moves) and waits for the barriers. */
    private void wipe(List<DeviceId> devices) throws IOException, InterruptedException {
        List<CompletableFuture<InstallResult>> fs = new ArrayList<>();
        for (DeviceId d : devices) {
            List<PlannedRule> held = southbound.wantedRules(d);
            if (!held.isEmpty()) {
                fs.add(southbound.install(d, List.of(), held));
            }
        }
        for (CompletableFuture<InstallResult> f : fs) {
            try {
                InstallResult r = f.get(30, TimeUnit.SECONDS);
                if (!r.allInForce()) {
                    throw new IOException("clearing the fabric was refused: " + r);
                }
            } catch (ExecutionException | TimeoutException e) {
                throw new IOException("clearing the fabric failed: " + e.getMessage(), e);
            }
        }
    }

    @Override
    public void close() {
        closing = true;
        agents.values().forEach(HostAgents::close);
        southbound.close();
    }
}

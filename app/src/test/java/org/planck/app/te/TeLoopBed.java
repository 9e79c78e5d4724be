package org.planck.app.te;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onlab.packet.MacAddress;
import org.onosproject.cfg.ComponentConfigAdapter;
import org.onosproject.cluster.ClusterServiceAdapter;
import org.onosproject.cluster.LeadershipServiceAdapter;
import org.onosproject.cluster.NodeId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.device.PortStatistics;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.flow.instructions.L2ModificationInstruction;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.TcpPortCriterion;
import org.osgi.service.component.ComponentContext;
import org.onlab.osgi.ComponentContextAdapter;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.RuleKind;
import org.planck.api.telemetry.TelemetryBatch;
import org.planck.api.telemetry.TelemetryEvent;
import org.planck.app.FabricTestBed;
import org.planck.app.metrics.PlanckMetricsManager;
import org.planck.app.reroute.RerouteLog;
import org.planck.app.telemetry.OsgiPropertyConstants;
import org.planck.app.telemetry.TelemetryStateManager;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.onosproject.net.NetTestTools.injectEventDispatcher;

/**
 * A k=4 fat tree with shadow routes, telemetry state, reroute log, metrics and the TE manager
 * wired to SDK adapters, all synchronous. Captured flow rules show what TE emitted.
 */
final class TeLoopBed {
    final FabricTestBed fabric = new FabricTestBed(4);
    final TelemetryStateManager telemetry;
    final RerouteLog reroutes = new RerouteLog();
    final PlanckMetricsManager metrics = new PlanckMetricsManager();
    final PlanckTeManager te = new PlanckTeManager();
    /** Port delta statistics the Poll baseline reads. */
    final Map<DeviceId, List<PortStatistics>> deltas = new HashMap<>();
    final NodeId localNode = NodeId.nodeId("local");
    /** Controller clock of the telemetry state (flow expiry). */
    final org.planck.app.telemetry.ManualClock clock =
            new org.planck.app.telemetry.ManualClock(System.currentTimeMillis());
    volatile NodeId leader = localNode;
    private long seq;

    /** Devices as the fabric test bed has them, plus configurable delta statistics. */
    final class StatsDevices extends DeviceServiceAdapter {
        private final DeviceService devices;

        StatsDevices(DeviceService devices) {
            this.devices = devices;
        }

        @Override
        public Iterable<Device> getAvailableDevices() {
            return devices.getAvailableDevices();
        }

        @Override
        public Device getDevice(DeviceId deviceId) {
            return devices.getDevice(deviceId);
        }

        @Override
        public Port getPort(DeviceId deviceId, PortNumber portNumber) {
            return devices.getPort(deviceId, portNumber);
        }

        @Override
        public Port getPort(ConnectPoint cp) {
            return devices.getPort(cp.deviceId(), cp.port());
        }

        @Override
        public List<PortStatistics> getPortDeltaStatistics(DeviceId deviceId) {
            return deltas.getOrDefault(deviceId, List.of());
        }
    }

    TeLoopBed(ObjectNode config, String mode) {
        fabric.start();
        fabric.configure(config);
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(OsgiPropertyConstants.SWEEP_INTERVAL_MS, "3600000");
        telemetry = TelemetryStateManager.standalone(fabric.storage, fabric.devices, fabric.events,
                clock, props);
        injectEventDispatcher(reroutes, fabric.events);
        FabricTestBed.call(reroutes, "activate");
        FabricTestBed.set(metrics, "ingestService", telemetry);
        FabricTestBed.set(metrics, "flowStateService", telemetry);
        FabricTestBed.set(metrics, "portLoadService", telemetry);
        FabricTestBed.set(metrics, "rerouteService", reroutes);
        FabricTestBed.set(metrics, "configService", fabric.config);
        FabricTestBed.set(metrics, "forwardingMapService", new NoCollectors());
        FabricTestBed.call(metrics, "activate");

        te.routeService = fabric.routes;
        te.flowStateService = telemetry;
        te.portLoadService = telemetry;
        te.rerouteService = reroutes;
        te.metricsService = metrics;
        te.configService = fabric.config;
        te.deviceService = new StatsDevices(fabric.devices);
        te.cfgService = new ComponentConfigAdapter();
        te.clusterService = new ClusterServiceAdapter();
        te.leadershipService = new LeadershipServiceAdapter() {
            @Override
            public NodeId getLeader(String path) {
                return leader;
            }
        };
        Hashtable<String, Object> teProps = new Hashtable<>();
        teProps.put(org.planck.app.te.OsgiPropertyConstants.TE_MODE, mode);
        // Tests drive syncs themselves.
        teProps.put(org.planck.app.te.OsgiPropertyConstants.LOAD_SYNC_MS, "3600000");
        te.activate(context(teProps));
    }

    static ComponentContext context(Dictionary<String, Object> props) {
        return new ComponentContextAdapter() {
            @Override
            @SuppressWarnings("rawtypes")
            public Dictionary getProperties() {
                return props;
            }
        };
    }

    void stop() {
        te.deactivate();
        FabricTestBed.call(metrics, "deactivate");
        FabricTestBed.call(reroutes, "deactivate");
        telemetry.deactivateStandalone();
        fabric.stop();
    }

    void ingest(List<? extends TelemetryEvent> events) {
        telemetry.ingest(new TelemetryBatch("c1", seq++, System.currentTimeMillis() * 1000, events));
    }

    FabricHost host(int pod, int edge, int h) {
        return fabric.routes.host(org.planck.app.routing.algo.FatTreeFabric.hostMac(pod, edge, h)).orElseThrow();
    }

    /** The per-flow ingress rule of a flow at an edge switch, if any. */
    Optional<FlowRule> flowRule(DeviceId edge, FlowKey flow) {
        for (FlowRule r : fabric.flowRules.rules(edge)) {
            if (r.priority() != RuleKind.INGRESS_FLOW.priority()) {
                continue;
            }
            TcpPortCriterion sp = (TcpPortCriterion) r.selector().getCriterion(Criterion.Type.TCP_SRC);
            if (sp != null && sp.tcpPort().toInt() == flow.srcPort()) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    int flowRuleCount() {
        int n = 0;
        for (List<FlowRule> rules : fabric.flowRules.snapshot().values()) {
            for (FlowRule r : rules) {
                n += r.priority() == RuleKind.INGRESS_FLOW.priority() ? 1 : 0;
            }
        }
        return n;
    }

    static MacAddress rewrite(FlowRule r) {
        for (Instruction i : r.treatment().allInstructions()) {
            if (i instanceof L2ModificationInstruction.ModEtherInstruction
                    && ((L2ModificationInstruction) i).subtype() == L2ModificationInstruction.L2SubType.ETH_DST) {
                return ((L2ModificationInstruction.ModEtherInstruction) i).mac();
            }
        }
        throw new AssertionError("no eth_dst rewrite in " + r);
    }

    static PortNumber output(FlowRule r) {
        Collection<PortNumber> outs = new ArrayList<>();
        for (Instruction i : r.treatment().allInstructions()) {
            if (i instanceof Instructions.OutputInstruction) {
                outs.add(((Instructions.OutputInstruction) i).port());
            }
        }
        if (outs.size() != 1) {
            throw new AssertionError("expected one output in " + r);
        }
        return outs.iterator().next();
    }

    /** Forwarding-map service with no collectors (metrics read push counters from it). */
    static final class NoCollectors implements org.planck.api.ForwardingMapService {
        @Override
        public Optional<org.planck.api.CollectorForwardingMap> forwardingMap(String collectorId) {
            return Optional.empty();
        }

        @Override
        public Optional<org.planck.api.CollectorPushStatus> pushStatus(String collectorId) {
            return Optional.empty();
        }
    }
}

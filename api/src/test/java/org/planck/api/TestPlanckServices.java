package org.planck.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.collect.ImmutableList;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.FlowRule;
import org.planck.api.CollectorForwardingMap;
import org.planck.api.CollectorPushStatus;
import org.planck.api.FlowKey;
import org.planck.api.ForwardingMapService;
import org.planck.api.MirrorListener;
import org.planck.api.MirrorMode;
import org.planck.api.MirrorService;
import org.planck.api.MirrorSession;
import org.planck.api.PortCapacity;
import org.planck.api.ShadowRouteListener;
import org.planck.api.ShadowRouteService;
import org.planck.api.SwitchForwarding;
import org.planck.api.config.PlanckConfigListener;
import org.planck.api.config.PlanckConfigService;
import org.planck.api.config.PlanckSettings;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowMacSpace;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowPathId;
import org.planck.api.fabric.ShadowTree;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * In-memory Planck services behind the CLI commands and REST resources in their tests: two switches s1 - s2, host A on s1
 * port 1, host B on s2 port 1, one shadow tree toward each host.
 */
public final class TestPlanckServices {
    public static final DeviceId S1 = DeviceId.deviceId("of:0000000000000001");
    public static final DeviceId S2 = DeviceId.deviceId("of:0000000000000002");
    public static final DeviceId S3 = DeviceId.deviceId("of:0000000000000003");
    public static final MacAddress A = MacAddress.valueOf("00:00:00:00:00:0a");
    public static final MacAddress B = MacAddress.valueOf("00:00:00:00:00:0b");
    public static final long TEN_G = 10_000_000_000L;

    private TestPlanckServices() {
    }

    /** Config held in memory, validated exactly as the real service validates. */
    public static final class Config implements PlanckConfigService {
        public volatile PlanckSettings settings;

        @Override
        public Optional<PlanckSettings> settings() {
            return Optional.ofNullable(settings);
        }

        @Override
        public PlanckSettings apply(JsonNode json) {
            settings = PlanckSettings.parse(json);
            return settings;
        }

        @Override
        public boolean remove() {
            boolean had = settings != null;
            settings = null;
            return had;
        }

        @Override
        public Optional<String> lastRejection() {
            return Optional.empty();
        }

        @Override
        public void addListener(PlanckConfigListener listener) {
        }

        @Override
        public void removeListener(PlanckConfigListener listener) {
        }
    }

    public static final class Mirrors implements MirrorService {
        public final List<MirrorSession> sessions = new ArrayList<>();

        @Override
        public Collection<MirrorSession> sessions() {
            return ImmutableList.copyOf(sessions);
        }

        @Override
        public Optional<MirrorSession> session(DeviceId deviceId) {
            return sessions.stream().filter(s -> s.deviceId().equals(deviceId)).findFirst();
        }

        @Override
        public void addListener(MirrorListener listener) {
        }

        @Override
        public void removeListener(MirrorListener listener) {
        }
    }

    public static MirrorSession session(DeviceId d, MirrorMode mode) {
        return new MirrorSession(d, PortNumber.portNumber(5), VlanId.vlanId((short) 7), mode,
                List.of(PortNumber.portNumber(1), PortNumber.portNumber(2)), MirrorSession.State.ACTIVE, "");
    }

    public static final class Routes implements ShadowRouteService {
        public final RoutingPlan plan;

        public Routes() {
            FabricHost a = FabricHost.of(A, List.of(IpAddress.valueOf("10.0.0.1")),
                    new ConnectPoint(S1, PortNumber.portNumber(1)), TEN_G);
            FabricHost b = FabricHost.of(B, List.of(IpAddress.valueOf("10.0.0.2")),
                    new ConnectPoint(S2, PortNumber.portNumber(1)), TEN_G);
            FabricLink l = FabricLink.of(S1, PortNumber.portNumber(2), S2, PortNumber.portNumber(2), TEN_G);
            FabricGraph g = FabricGraph.builder().addSwitch(S1).addSwitch(S2).addBidirectionalLink(l)
                    .addHost(a).addHost(b).build();
            ShadowTree toB = ShadowTree.of(ShadowPathId.of(B, 0), ShadowMacSpace.mac(0), b, Map.of(S1, l),
                    Set.of(S1, S2));
            ShadowTree toA = ShadowTree.of(ShadowPathId.of(A, 0), ShadowMacSpace.mac(1), a,
                    Map.of(S2, l.reversed()), Set.of(S1, S2));
            plan = RoutingPlan.of(g, List.of(toA, toB), Map.of());
        }

        @Override
        public Optional<RoutingPlan> plan() {
            return Optional.of(plan);
        }

        @Override
        public Optional<FabricHost> host(MacAddress mac) {
            return plan.graph().host(mac);
        }

        @Override
        public List<ShadowTree> trees(MacAddress destination) {
            return plan.trees(destination);
        }

        @Override
        public List<ShadowPath> paths(MacAddress src, MacAddress dst) {
            List<ShadowPath> paths = new ArrayList<>();
            for (ShadowTree t : plan.trees(dst)) {
                plan.path(src, dst, t.index()).ifPresent(paths::add);
            }
            return paths;
        }

        @Override
        public Optional<ShadowPath> chosenPath(MacAddress src, MacAddress dst) {
            OptionalInt i = plan.defaultPathIndex(src, dst);
            return i.isPresent() ? plan.path(src, dst, i.getAsInt()) : Optional.empty();
        }

        @Override
        public Map<MacAddress, PortNumber> egressEntries(DeviceId deviceId) {
            return Map.of();
        }

        @Override
        public Collection<FlowRule> plannedRules() {
            return List.of();
        }

        @Override
        public void placeFlow(FlowKey flow, MacAddress src, MacAddress dst, int pathIndex) {
            throw new UnsupportedOperationException("not used by these tests");
        }

        @Override
        public boolean removeFlow(FlowKey flow) {
            return false;
        }

        @Override
        public Map<FlowKey, FlowPlacement> placements() {
            return Map.of();
        }

        @Override
        public void addListener(ShadowRouteListener listener) {
        }

        @Override
        public void removeListener(ShadowRouteListener listener) {
        }
    }

    public static final class Maps implements ForwardingMapService {
        @Override
        public Optional<CollectorForwardingMap> forwardingMap(String collectorId) {
            if (!collectorId.equals("c1")) {
                return Optional.empty();
            }
            return Optional.of(new CollectorForwardingMap("c1", 12, List.of(new SwitchForwarding(S1,
                    VlanId.vlanId((short) 1), PortNumber.portNumber(5),
                    List.of(new PortCapacity(PortNumber.portNumber(1), TEN_G)),
                    Map.of(A, PortNumber.portNumber(1), ShadowMacSpace.mac(0), PortNumber.portNumber(2))))));
        }

        @Override
        public Optional<CollectorPushStatus> pushStatus(String collectorId) {
            return collectorId.equals("c1")
                    ? Optional.of(new CollectorPushStatus("c1", 12, -1, 3, 1, 0, 0, 0, "")) : Optional.empty();
        }
    }
}

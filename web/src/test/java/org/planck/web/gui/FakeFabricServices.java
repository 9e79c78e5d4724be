package org.planck.web.gui;

import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DefaultLink;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Link;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.link.LinkServiceAdapter;
import org.onosproject.net.provider.ProviderId;
import org.planck.api.FlowKey;
import org.planck.api.ShadowRouteListener;
import org.planck.api.ShadowRouteService;
import org.planck.api.TestPlanckServices;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowTree;
import org.planck.api.te.PlanckRerouteEvent;
import org.planck.api.te.PlanckRerouteListener;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteService;
import org.planck.api.telemetry.PlanckCongestionEvent;
import org.planck.api.telemetry.PlanckCongestionListener;
import org.planck.api.telemetry.PortLoad;
import org.planck.api.telemetry.PortLoadService;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Services the overlay reads, in memory: links, port loads, shadow routes, reroutes. */
final class FakeFabricServices {
    static final ProviderId PID = new ProviderId("of", "test");

    private FakeFabricServices() {
    }

    static Link link(DeviceId a, long pa, DeviceId b, long pb) {
        return DefaultLink.builder().providerId(PID)
                .src(new ConnectPoint(a, PortNumber.portNumber(pa)))
                .dst(new ConnectPoint(b, PortNumber.portNumber(pb)))
                .type(Link.Type.DIRECT).state(Link.State.ACTIVE).build();
    }

    /** Both directions of a link, as LinkService lists them. */
    static List<Link> both(DeviceId a, long pa, DeviceId b, long pb) {
        return List.of(link(a, pa, b, pb), link(b, pb, a, pa));
    }

    static final class Links extends LinkServiceAdapter {
        final List<Link> links = new ArrayList<>();

        @Override
        public Iterable<Link> getActiveLinks() {
            return new ArrayList<>(links);
        }
    }

    static final class PortLoads implements PortLoadService {
        static final long CAPACITY = 1_000_000_000L;
        final Map<ConnectPoint, Long> bps = new HashMap<>();
        final Set<ConnectPoint> congested = new HashSet<>();
        final List<PlanckCongestionListener> listeners = new ArrayList<>();

        @Override
        public PortLoad load(ConnectPoint port) {
            return new PortLoad(port, bps.getOrDefault(port, 0L), CAPACITY, bps.containsKey(port) ? 1 : 0,
                    congested.contains(port));
        }

        @Override
        public Collection<PortLoad> loads() {
            List<PortLoad> l = new ArrayList<>();
            bps.keySet().forEach(p -> l.add(load(p)));
            return l;
        }

        @Override
        public Set<ConnectPoint> congestedPorts() {
            return new HashSet<>(congested);
        }

        @Override
        public void setCongestionThreshold(double thresholdPercent, double hysteresisPercent) {
        }

        @Override
        public void addListener(PlanckCongestionListener listener) {
            listeners.add(listener);
        }

        @Override
        public void removeListener(PlanckCongestionListener listener) {
            listeners.remove(listener);
        }

        void post(PlanckCongestionEvent e) {
            listeners.forEach(l -> l.event(e));
        }
    }

    /** The two-switch plan of {@link TestPlanckServices.Routes} plus flow placements. */
    static final class Routes implements ShadowRouteService {
        final TestPlanckServices.Routes plan = new TestPlanckServices.Routes();
        final Map<FlowKey, FlowPlacement> placements = new LinkedHashMap<>();

        @Override
        public Optional<RoutingPlan> plan() {
            return plan.plan();
        }

        @Override
        public Optional<FabricHost> host(MacAddress mac) {
            return plan.host(mac);
        }

        @Override
        public List<ShadowTree> trees(MacAddress destination) {
            return plan.trees(destination);
        }

        @Override
        public List<ShadowPath> paths(MacAddress src, MacAddress dst) {
            return plan.paths(src, dst);
        }

        @Override
        public Optional<ShadowPath> chosenPath(MacAddress src, MacAddress dst) {
            return plan.chosenPath(src, dst);
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
            placements.put(flow, FlowPlacement.of(src, dst, pathIndex, 0));
        }

        @Override
        public boolean removeFlow(FlowKey flow) {
            return placements.remove(flow) != null;
        }

        @Override
        public Map<FlowKey, FlowPlacement> placements() {
            return Map.copyOf(placements);
        }

        @Override
        public void addListener(ShadowRouteListener listener) {
        }

        @Override
        public void removeListener(ShadowRouteListener listener) {
        }
    }

    static final class Reroutes implements RerouteService {
        final List<Reroute> recent = new ArrayList<>();

        @Override
        public void report(PlanckRerouteEvent.Type type, Reroute reroute) {
            recent.add(0, reroute);
        }

        @Override
        public List<Reroute> recent(int max) {
            return recent.subList(0, Math.min(max, recent.size()));
        }

        @Override
        public long rerouteCount() {
            return recent.size();
        }

        @Override
        public void addListener(PlanckRerouteListener listener) {
        }

        @Override
        public void removeListener(PlanckRerouteListener listener) {
        }
    }
}

package org.planck.web.gui;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableSet;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.HostId;
import org.onosproject.net.Link;
import org.onosproject.net.link.LinkService;
import org.onosproject.ui.RequestHandler;
import org.onosproject.ui.UiConnection;
import org.onosproject.ui.UiMessageHandler;
import org.onosproject.ui.topo.Highlights;
import org.onosproject.ui.topo.TopoJson;
import org.planck.api.FlowKey;
import org.planck.api.ShadowRouteService;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.PathHop;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteService;
import org.planck.api.telemetry.PlanckCongestionEvent;
import org.planck.api.telemetry.PlanckCongestionListener;
import org.planck.api.telemetry.PortLoadService;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Map;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Websocket side of the Planck topology overlay. While the overlay is on, it sends the view
 * every {@link #REFRESH_MS} ms and on every congestion notice: a {@code showHighlights}
 * message (links coloured and labelled by load, congested switches badged, or the selected
 * host's paths) and a {@code planckTopovData} message with the same facts as JSON for the
 * overlay's panel (and for the lab's live fabric view, which reads the same shape).
 */
public class PlanckTopovMessageHandler extends UiMessageHandler {
    static final String START = "planckTopovStart";
    static final String STOP = "planckTopovStop";
    static final String MODE = "planckTopovMode";
    static final String SELECT = "planckTopovSelect";
    static final String DATA = "planckTopovData";
    static final String SHOW_HIGHLIGHTS = "showHighlights";

    /** Period of the refresh while the overlay is on: the view is at most this old. */
    static final long REFRESH_MS = 1000;
    /** Congestion notices kept for the panel (oldest dropped first). */
    static final int NOTICES_KEPT = 20;
    /** Reroutes of the selected host shown in PATHS mode. */
    static final int REROUTES_SHOWN = 5;
    /** Reroutes scanned for the selected host. */
    static final int REROUTES_SCANNED = 200;

    private final Logger log = LoggerFactory.getLogger(getClass());
    private final Deque<ObjectNode> notices = new ArrayDeque<>();
    private final PlanckCongestionListener congestionListener = this::onCongestion;
    private final boolean periodic;

    private volatile boolean active;
    private volatile OverlayMode mode = OverlayMode.LOAD;
    private volatile MacAddress selectedHost;
    private ScheduledExecutorService timer;
    private long noticesDropped;

    /** Handler that refreshes every {@link #REFRESH_MS} ms while the overlay is on. */
    public PlanckTopovMessageHandler() {
        this(true);
    }

    /**
     * Handler for tests, which call {@link #refresh()} themselves.
     *
     * @param periodic refresh on a timer while the overlay is on
     */
    PlanckTopovMessageHandler(boolean periodic) {
        this.periodic = periodic;
    }

    @Override
    public void init(UiConnection connection, ServiceDirectory directory) {
        super.init(connection, directory);
        get(PortLoadService.class).addListener(congestionListener);
    }

    @Override
    public void destroy() {
        stopTimer();
        get(PortLoadService.class).removeListener(congestionListener);
        super.destroy();
    }

    @Override
    protected Collection<RequestHandler> createRequestHandlers() {
        return ImmutableSet.of(new Start(), new Stop(), new Mode(), new Select());
    }

    private final class Start extends RequestHandler {
        Start() {
            super(START);
        }

        @Override
        public void process(ObjectNode payload) {
            mode = OverlayMode.fromWire(payload.path("mode").asText("load")).orElse(OverlayMode.LOAD);
            active = true;
            refresh();
            startTimer();
        }
    }

    private final class Stop extends RequestHandler {
        Stop() {
            super(STOP);
        }

        @Override
        public void process(ObjectNode payload) {
            active = false;
            stopTimer();
            sendMessage(TopoJson.highlightsMessage(new Highlights()));
        }
    }

    private final class Mode extends RequestHandler {
        Mode() {
            super(MODE);
        }

        @Override
        public void process(ObjectNode payload) {
            Optional<OverlayMode> m = OverlayMode.fromWire(payload.path("mode").asText(""));
            if (m.isEmpty()) {
                sendError("unknown mode: " + payload.path("mode").asText(""));
                return;
            }
            mode = m.get();
            refresh();
        }
    }

    private final class Select extends RequestHandler {
        Select() {
            super(SELECT);
        }

        @Override
        public void process(ObjectNode payload) {
            String id = payload.path("id").asText("");
            if (id.isEmpty()) {
                selectedHost = null;
            } else {
                try {
                    selectedHost = HostId.hostId(id).mac();
                } catch (IllegalArgumentException e) {
                    sendError("not a host id: " + id);
                    return;
                }
            }
            refresh();
        }
    }

    /** Sends the current highlights and data, if the overlay is on. */
    void refresh() {
        if (!active) {
            return;
        }
        PortLoadService portLoads = get(PortLoadService.class);
        Iterable<Link> links = get(LinkService.class).getActiveLinks();
        List<LinkLoad> loads = LinkLoad.of(links, portLoads::load);
        Set<ConnectPoint> congested = portLoads.congestedPorts();

        ObjectNode data = objectNode();
        data.put("mode", mode.wireName());
        data.set("links", OverlayJson.links(loads));
        data.set("congestedPorts", OverlayJson.ports(congested));
        synchronized (notices) {
            ArrayNode n = data.putArray("notices");
            notices.descendingIterator().forEachRemaining(n::add);
            data.put("noticesDropped", noticesDropped);
        }
        // In-band telemetry hops (INT/PINT: hop latency, queue occupancy) per device/port.
        // No Planck service records them yet; the slot is sent empty so the overlay's
        // hover can show them once the inband component fills it.
        data.putArray("hops");

        Highlights highlights;
        MacAddress host = selectedHost;
        if (mode == OverlayMode.PATHS && host != null) {
            ShadowRouteService routes = get(ShadowRouteService.class);
            Selection sel = Selection.of(host, routes.placements());
            List<ShadowPath> paths = sel.dst() == null ? List.of() : routes.paths(host, sel.dst());
            int current = sel.dst() == null ? -1
                    : routes.chosenPath(host, sel.dst()).map(ShadowPath::index).orElse(-1);
            data.set("selection", selectionJson(host, sel, paths, current));
            highlights = FabricHighlights.paths(links, loads, paths, current, congested);
        } else {
            highlights = FabricHighlights.loads(loads, congested, mode == OverlayMode.CONGESTION);
        }
        sendMessage(TopoJson.highlightsMessage(highlights));
        sendMessage(envelope(DATA, data));
    }

    private ObjectNode selectionJson(MacAddress host, Selection sel, List<ShadowPath> paths, int current) {
        ObjectNode s = objectNode();
        s.put("host", host.toString());
        s.put("peer", sel.dst() == null ? null : sel.dst().toString());
        s.put("flows", sel.flows());
        s.put("currentPath", current);
        ArrayNode ps = s.putArray("paths");
        for (ShadowPath p : paths) {
            ObjectNode pj = ps.addObject();
            pj.put("index", p.index());
            pj.put("shadowMac", p.shadowMac().toString());
            pj.put("current", p.index() == current);
            ArrayNode hops = pj.putArray("hops");
            for (PathHop h : p.hops()) {
                hops.addObject().put("device", h.device().toString()).put("port", h.outPort().toLong());
            }
        }
        ArrayNode rs = s.putArray("reroutes");
        int shown = 0;
        for (Reroute r : get(RerouteService.class).recent(REROUTES_SCANNED)) {
            if (shown == REROUTES_SHOWN) {
                break;
            }
            if (sel.hostFlows().contains(r.flow())) {
                rs.add(OverlayJson.reroute(r));
                shown++;
            }
        }
        return s;
    }

    private void onCongestion(PlanckCongestionEvent e) {
        ObjectNode n = OverlayJson.notice(e);
        synchronized (notices) {
            if (notices.size() == NOTICES_KEPT) {
                notices.removeFirst();
                noticesDropped++;
            }
            notices.addLast(n);
        }
        refresh();
    }

    private void sendError(String message) {
        ObjectNode p = objectNode();
        p.put("error", message);
        sendMessage(envelope(DATA, p));
    }

    private ObjectNode envelope(String event, ObjectNode payload) {
        ObjectNode m = objectNode();
        m.put("event", event);
        m.set("payload", payload);
        return m;
    }

    private synchronized void startTimer() {
        if (periodic && timer == null) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "planck-topov-refresh");
                t.setDaemon(true);
                return t;
            });
            timer.scheduleAtFixedRate(this::refreshQuietly, REFRESH_MS, REFRESH_MS, TimeUnit.MILLISECONDS);
        }
    }

    private synchronized void stopTimer() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }

    private void refreshQuietly() {
        try {
            refresh();
        } catch (RuntimeException e) {
            // A closed socket or a service going away must not kill the timer thread.
            log.debug("overlay refresh failed: {}", e.toString());
        }
    }

    /** The selected host's flows and the peer of its largest placed flow. */
    private static final class Selection {
        private final MacAddress dst;
        private final Set<FlowKey> hostFlows;

        private Selection(MacAddress dst, Set<FlowKey> hostFlows) {
            this.dst = dst;
            this.hostFlows = hostFlows;
        }

        static Selection of(MacAddress host, Map<FlowKey, FlowPlacement> placements) {
            Set<FlowKey> flows = new HashSet<>();
            FlowPlacement largest = null;
            for (Map.Entry<FlowKey, FlowPlacement> e : placements.entrySet()) {
                FlowPlacement p = e.getValue();
                if (p.src().equals(host)) {
                    flows.add(e.getKey());
                    if (largest == null || p.rateBytesPerSec() > largest.rateBytesPerSec()) {
                        largest = p;
                    }
                }
            }
            return new Selection(largest == null ? null : largest.dst(), flows);
        }

        MacAddress dst() {
            return dst;
        }

        int flows() {
            return hostFlows.size();
        }

        Set<FlowKey> hostFlows() {
            return hostFlows;
        }
    }
}

package org.planck.web.gui;

import org.onosproject.net.ConnectPoint;
import org.onosproject.net.Link;
import org.onosproject.net.LinkKey;
import org.onosproject.ui.topo.TopoUtils;
import org.planck.api.telemetry.PortLoad;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Load of one bidirectional infrastructure link as the topology view draws it: the GUI has
 * one line per link pair, so the line shows the busier of the two egress ports.
 */
public final class LinkLoad {
    private final String id;
    private final ConnectPoint busierPort;
    private final long loadBps;
    private final long capacityBps;
    private final boolean congested;

    private LinkLoad(String id, ConnectPoint busierPort, long loadBps, long capacityBps, boolean congested) {
        this.id = id;
        this.busierPort = busierPort;
        this.loadBps = loadBps;
        this.capacityBps = capacityBps;
        this.congested = congested;
    }

    /** GUI link id: {@link TopoUtils#compactLinkString} of the canonical direction. */
    public String id() {
        return id;
    }

    /** Egress port of the busier direction. */
    public ConnectPoint busierPort() {
        return busierPort;
    }

    public long loadBps() {
        return loadBps;
    }

    public long capacityBps() {
        return capacityBps;
    }

    /** Either direction's egress port is congested. */
    public boolean congested() {
        return congested;
    }

    /** Load over capacity of the busier direction; 0 when the capacity is unknown. */
    public double utilization() {
        return capacityBps > 0 ? (double) loadBps / capacityBps : 0.0;
    }

    /**
     * Pairs the links into GUI lines and gives each the load of its busier egress port.
     *
     * @param links infrastructure links (both directions, as LinkService lists them)
     * @param loadOf port load lookup (zero load for ports without flows)
     * @return one entry per bidirectional link, in the order the links came
     */
    public static List<LinkLoad> of(Iterable<Link> links, Function<ConnectPoint, PortLoad> loadOf) {
        Map<LinkKey, List<Link>> pairs = new LinkedHashMap<>();
        for (Link l : links) {
            pairs.computeIfAbsent(TopoUtils.canonicalLinkKey(l), k -> new ArrayList<>(2)).add(l);
        }
        List<LinkLoad> out = new ArrayList<>(pairs.size());
        for (Map.Entry<LinkKey, List<Link>> e : pairs.entrySet()) {
            out.add(of(e.getKey(), e.getValue(), loadOf));
        }
        return out;
    }

    private static LinkLoad of(LinkKey key, Collection<Link> both, Function<ConnectPoint, PortLoad> loadOf) {
        Link canonical = both.iterator().next();
        PortLoad busier = null;
        boolean congested = false;
        for (Link l : both) {
            if (l.src().equals(key.src()) && l.dst().equals(key.dst())) {
                canonical = l;
            }
            PortLoad pl = loadOf.apply(l.src());
            congested |= pl.congested();
            if (busier == null || pl.utilization() > busier.utilization()
                    || (pl.utilization() == busier.utilization() && pl.loadBps() > busier.loadBps())) {
                busier = pl;
            }
        }
        return new LinkLoad(TopoUtils.compactLinkString(canonical), busier.port(), busier.loadBps(),
                busier.capacityBps(), congested);
    }
}

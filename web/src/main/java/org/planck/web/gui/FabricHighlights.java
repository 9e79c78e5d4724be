package org.planck.web.gui;

import org.onosproject.net.ConnectPoint;
import org.onosproject.net.Link;
import org.onosproject.ui.topo.DeviceHighlight;
import org.onosproject.ui.topo.Highlights;
import org.onosproject.ui.topo.LinkHighlight;
import org.onosproject.ui.topo.Mod;
import org.onosproject.ui.topo.NodeBadge;
import org.onosproject.ui.topo.TopoUtils;
import org.planck.api.fabric.ShadowPath;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.onosproject.ui.topo.LinkHighlight.Flavor.NO_HIGHLIGHT;
import static org.onosproject.ui.topo.LinkHighlight.Flavor.PRIMARY_HIGHLIGHT;
import static org.onosproject.ui.topo.LinkHighlight.Flavor.SECONDARY_HIGHLIGHT;

/**
 * Turns link loads, congested ports and shadow paths into the topology view's highlights.
 * Colours reuse the classes of ONOS's own port-traffic overlay (topo.css), so the overlay
 * looks like the built-in traffic view.
 */
public final class FabricHighlights {
    /** Below 50 % of capacity. */
    static final Mod GREEN = new Mod("port-traffic-green");
    /** 50 to 70 %. */
    static final Mod YELLOW = new Mod("port-traffic-yellow");
    /** 70 to 90 %. */
    static final Mod ORANGE = new Mod("port-traffic-orange");
    /** 90 % and over, or congested. */
    static final Mod RED = new Mod("port-traffic-red");
    /** The path the selected flows are on. */
    static final Mod CURRENT_PATH = new Mod("planck-current-path");

    private FabricHighlights() {
    }

    /** Colour class for a utilisation (load / capacity). */
    static Mod colour(double utilization, boolean congested) {
        if (congested || utilization >= 0.9) {
            return RED;
        }
        if (utilization >= 0.7) {
            return ORANGE;
        }
        return utilization >= 0.5 ? YELLOW : GREEN;
    }

    /** Link label: utilisation and rate, e.g. "87% 8.70 Gbps". */
    static String label(LinkLoad l) {
        String rate = TopoUtils.formatClippedBitRate(l.loadBps()).toString();
        return l.capacityBps() > 0 ? Math.round(l.utilization() * 100) + "% " + rate : rate;
    }

    /**
     * LOAD and CONGESTION modes: each loaded (or, with {@code congestedOnly}, congested) link
     * coloured and labelled; switches with a congested port get a red badge.
     *
     * @param loads         link loads
     * @param congested     congested egress ports
     * @param congestedOnly draw only congested links
     * @return highlights
     */
    public static Highlights loads(List<LinkLoad> loads, Set<ConnectPoint> congested, boolean congestedOnly) {
        Highlights h = new Highlights();
        for (LinkLoad l : loads) {
            if (congestedOnly ? !l.congested() : l.loadBps() == 0 && !l.congested()) {
                continue;
            }
            h.add(new LinkHighlight(l.id(), l.congested() ? PRIMARY_HIGHLIGHT : SECONDARY_HIGHLIGHT)
                    .addMod(colour(l.utilization(), l.congested()))
                    .setLabel(label(l)));
        }
        badgeCongestedSwitches(h, congested);
        return h;
    }

    /**
     * PATHS mode: the links of the selected host's shadow paths, the current one primary and
     * the others secondary, each labelled with its load; everything else subdued.
     *
     * @param links   all infrastructure links
     * @param loads   link loads (for labels)
     * @param paths   the k shadow paths
     * @param current index of the path the flows are on, or -1
     * @param congested congested egress ports
     * @return highlights
     */
    public static Highlights paths(Iterable<Link> links, List<LinkLoad> loads, List<ShadowPath> paths,
                                   int current, Set<ConnectPoint> congested) {
        Map<ConnectPoint, String> idOfEgress = new HashMap<>();
        Map<String, LinkLoad> loadById = new HashMap<>();
        for (LinkLoad l : loads) {
            loadById.put(l.id(), l);
        }
        for (Link l : links) {
            // Both directions map to the GUI line of the pair.
            String id = TopoUtils.compactLinkString(l);
            String reverse = TopoUtils.compactLinkString(reverseOf(l, links));
            idOfEgress.put(l.src(), loadById.containsKey(id) ? id : reverse);
        }
        Set<String> onCurrent = new HashSet<>();
        Set<String> onOthers = new HashSet<>();
        for (ShadowPath p : paths) {
            for (ConnectPoint egress : p.egressPorts()) {
                String id = idOfEgress.get(egress);
                if (id != null) {
                    (p.index() == current ? onCurrent : onOthers).add(id);
                }
            }
        }
        Highlights h = new Highlights();
        for (String id : onCurrent) {
            LinkLoad l = loadById.get(id);
            LinkHighlight lh = new LinkHighlight(id, PRIMARY_HIGHLIGHT).addMod(CURRENT_PATH);
            if (l != null) {
                lh.addMod(colour(l.utilization(), l.congested())).setLabel(label(l));
            }
            h.add(lh);
        }
        for (String id : onOthers) {
            if (!onCurrent.contains(id)) {
                LinkLoad l = loadById.get(id);
                LinkHighlight lh = new LinkHighlight(id, SECONDARY_HIGHLIGHT);
                if (l != null) {
                    lh.addMod(colour(l.utilization(), l.congested())).setLabel(label(l));
                }
                h.add(lh);
            }
        }
        if (!paths.isEmpty()) {
            h.subdueAllElse(Highlights.Amount.MINIMALLY);
        }
        badgeCongestedSwitches(h, congested);
        return h;
    }

    /** A highlight that clears what the overlay drew (used when it is switched off). */
    static LinkHighlight cleared(String id) {
        return new LinkHighlight(id, NO_HIGHLIGHT);
    }

    private static Link reverseOf(Link l, Iterable<Link> links) {
        for (Link o : links) {
            if (o.src().equals(l.dst()) && o.dst().equals(l.src())) {
                return o;
            }
        }
        return l;
    }

    private static void badgeCongestedSwitches(Highlights h, Set<ConnectPoint> congested) {
        Map<String, Integer> perDevice = new HashMap<>();
        for (ConnectPoint cp : congested) {
            perDevice.merge(cp.elementId().toString(), 1, Integer::sum);
        }
        for (Map.Entry<String, Integer> e : perDevice.entrySet()) {
            DeviceHighlight dh = new DeviceHighlight(e.getKey());
            dh.setBadge(NodeBadge.number(NodeBadge.Status.ERROR, e.getValue(), "congested ports"));
            h.add(dh);
        }
    }
}

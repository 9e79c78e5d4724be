package org.planck.web.gui;

import org.onosproject.net.ConnectPoint;
import org.onosproject.ui.UiTopoOverlay;
import org.onosproject.ui.topo.PropertyPanel;
import org.planck.api.telemetry.PortLoad;
import org.planck.api.telemetry.PortLoadService;

/**
 * The overlay as the topology view's overlay menu lists it; adds Planck's port loads to the
 * summary and to a selected link's details panel.
 */
public class PlanckTopoOverlay extends UiTopoOverlay {
    /** Overlay id; the JS overlay registers under the same id. */
    public static final String OVERLAY_ID = "planck-overlay";

    private final PortLoadService portLoads;

    /**
     * Overlay reading loads from the given service.
     *
     * @param portLoads Planck's per-port load view
     */
    public PlanckTopoOverlay(PortLoadService portLoads) {
        super(OVERLAY_ID);
        this.portLoads = portLoads;
    }

    @Override
    public void modifySummary(PropertyPanel pp) {
        pp.addSeparator();
        pp.addProp("planckCongested", "Congested ports (Planck)", portLoads.congestedPorts().size());
    }

    @Override
    public void modifyInfraLinkDetails(PropertyPanel pp, ConnectPoint cpA, ConnectPoint cpB) {
        addPort(pp, "A", cpA);
        addPort(pp, "B", cpB);
    }

    private void addPort(PropertyPanel pp, String side, ConnectPoint cp) {
        PortLoad l = portLoads.load(cp);
        pp.addProp("planckLoad" + side, "Load " + side + " (Planck)",
                Math.round(l.utilization() * 100) + "% of " + l.capacityBps() / 1_000_000 + " Mbps, "
                        + l.flowCount() + " flows" + (l.congested() ? ", CONGESTED" : ""));
    }
}

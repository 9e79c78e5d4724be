package org.planck.app.reroute;

import org.onosproject.net.NetTestTools;
import org.planck.app.SyncEventDelivery;

/**
 * Reroute logs activated as ONOS would, with synchronous event delivery, for tests of other packages.
 */
public final class ActiveRerouteLogs {
    private ActiveRerouteLogs() {
    }

    /**
     * Creates and activates a reroute log.
     *
     * @return the active log
     */
    public static RerouteLog activated() {
        RerouteLog log = new RerouteLog();
        NetTestTools.injectEventDispatcher(log, new SyncEventDelivery());
        log.activate();
        return log;
    }
}

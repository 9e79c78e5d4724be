package org.planck.app.telemetry.algo;

import org.planck.api.telemetry.PortCongestionNotice;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A collector's standing CONGESTED notice for a port, with the controller time it was applied
 * (so a notice whose CLEARED was lost can expire once the port carries no live flow).
 */
public final class CollectorCongestion {
    private final PortCongestionNotice notice;
    private final String collector;
    private final long appliedMillis;

    /**
     * Creates the record.
     *
     * @param notice        the CONGESTED notice
     * @param collector     collector that sent it
     * @param appliedMillis controller time it was applied, ms since epoch
     */
    public CollectorCongestion(PortCongestionNotice notice, String collector, long appliedMillis) {
        this.notice = checkNotNull(notice, "notice");
        this.collector = checkNotNull(collector, "collector");
        this.appliedMillis = appliedMillis;
    }

    public PortCongestionNotice notice() {
        return notice;
    }

    public String collector() {
        return collector;
    }

    public long appliedMillis() {
        return appliedMillis;
    }
}

package org.planck.app.telemetry.algo;

import com.google.common.collect.ImmutableSet;
import org.onosproject.net.ConnectPoint;
import org.planck.api.config.CongestionSignal;
import org.planck.api.telemetry.CongestionSource;
import org.planck.api.telemetry.PlanckCongestionEvent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Congestion state per port from three sources: collector notices, the controller's own load
 * view crossing a threshold with hysteresis (both from mirror samples), and INT queue
 * occupancy. The congestion signal in force says which count: a port is congested while a
 * counted source says so; a transition of that combined state is reported once. Marks of
 * sources that do not count are kept, so changing the signal takes effect at once. Thread-safe.
 */
public final class PortCongestionTracker {

    /** A change of a port's combined congestion state. */
    public static final class Transition {
        private final ConnectPoint port;
        private final PlanckCongestionEvent.Type type;
        private final CongestionSource source;
        private final double utilization;

        Transition(ConnectPoint port, PlanckCongestionEvent.Type type, CongestionSource source, double utilization) {
            this.port = port;
            this.type = type;
            this.source = source;
            this.utilization = utilization;
        }

        public ConnectPoint port() {
            return port;
        }

        public PlanckCongestionEvent.Type type() {
            return type;
        }

        public CongestionSource source() {
            return source;
        }

        public double utilization() {
            return utilization;
        }

        /**
         * The event announcing this transition.
         *
         * @param receivedNanos when the triggering telemetry was received
         * @return the event
         */
        public PlanckCongestionEvent toEvent(long receivedNanos) {
            return new PlanckCongestionEvent(type, port, source, utilization, receivedNanos);
        }
    }

    private final class PortState {
        boolean byCollector;
        boolean byLoad;
        boolean byInt;

        boolean congested() {
            return signal.usesMirrors() && (byCollector || byLoad) || signal.usesInt() && byInt;
        }

        boolean anyMark() {
            return byCollector || byLoad || byInt;
        }
    }

    private final Map<ConnectPoint, PortState> states = new HashMap<>();
    private CongestionSignal signal = CongestionSignal.MIRRORS;
    private double thresholdPercent;
    private double hysteresisPercent;

    /**
     * Creates a tracker.
     *
     * @param thresholdPercent  load-view utilisation (% of capacity) at or above which a port is congested
     * @param hysteresisPercent a congested port clears below threshold minus this
     */
    public PortCongestionTracker(double thresholdPercent, double hysteresisPercent) {
        setThreshold(thresholdPercent, hysteresisPercent);
    }

    /**
     * Changes threshold and hysteresis; takes effect at the next load evaluation.
     *
     * @param thresholdPercent  in (0, 1000]
     * @param hysteresisPercent in [0, thresholdPercent)
     */
    public synchronized void setThreshold(double thresholdPercent, double hysteresisPercent) {
        checkArgument(thresholdPercent > 0 && thresholdPercent <= 1000,
                "congestion threshold must be in (0, 1000] percent, got %s", thresholdPercent);
        checkArgument(hysteresisPercent >= 0 && hysteresisPercent < thresholdPercent,
                "hysteresis must be in [0, threshold) percent, got %s", hysteresisPercent);
        this.thresholdPercent = thresholdPercent;
        this.hysteresisPercent = hysteresisPercent;
    }

    public synchronized double thresholdPercent() {
        return thresholdPercent;
    }

    public synchronized double hysteresisPercent() {
        return hysteresisPercent;
    }

    /**
     * Applies a collector's view of a port.
     *
     * @param port        the port
     * @param congested   true for CONGESTED, false for CLEARED
     * @param source      COLLECTOR for a notice, EXPIRY when a stale notice is dropped
     * @param utilization utilisation reported with it
     * @return the transition, if the combined state changed
     */
    public synchronized Optional<Transition> onCollector(ConnectPoint port, boolean congested,
                                                         CongestionSource source, double utilization) {
        PortState s = states.computeIfAbsent(port, p -> new PortState());
        boolean before = s.congested();
        s.byCollector = congested;
        return transition(port, s, before, source, utilization);
    }

    /**
     * Applies the load view's utilisation of a port.
     *
     * @param port        the port
     * @param utilization load / capacity
     * @return the transition, if the combined state changed
     */
    public synchronized Optional<Transition> onLoad(ConnectPoint port, double utilization) {
        PortState s = states.get(port);
        if (s == null) {
            if (utilization * 100 < thresholdPercent) {
                return Optional.empty();
            }
            s = new PortState();
            states.put(port, s);
        }
        boolean before = s.congested();
        if (!s.byLoad && utilization * 100 >= thresholdPercent) {
            s.byLoad = true;
        } else if (s.byLoad && utilization * 100 < thresholdPercent - hysteresisPercent) {
            s.byLoad = false;
        }
        return transition(port, s, before, CongestionSource.LOAD_VIEW, utilization);
    }

    /**
     * Applies a port's INT queue congestion mark.
     *
     * @param port      the port
     * @param congested the mark
     * @return the transition, if the combined state changed
     */
    public synchronized Optional<Transition> onIntQueue(ConnectPoint port, boolean congested) {
        PortState s = states.get(port);
        if (s == null) {
            if (!congested) {
                return Optional.empty();
            }
            s = new PortState();
            states.put(port, s);
        }
        boolean before = s.congested();
        s.byInt = congested;
        // A queue building up means the port sends at line rate: utilisation 1.
        return transition(port, s, before, CongestionSource.INT_QUEUE, congested ? 1.0 : 0);
    }

    /**
     * Chooses which sources count.
     *
     * @param newSignal mirrors, INT or both
     * @return the transitions of ports whose combined state changed
     */
    public synchronized List<Transition> setSignal(CongestionSignal newSignal) {
        List<Transition> out = new ArrayList<>();
        if (newSignal == signal) {
            return out;
        }
        Map<ConnectPoint, Boolean> before = new HashMap<>();
        states.forEach((p, s) -> before.put(p, s.congested()));
        signal = newSignal;
        for (Map.Entry<ConnectPoint, Boolean> e : before.entrySet()) {
            PortState s = states.get(e.getKey());
            boolean after = s.congested();
            if (after != e.getValue()) {
                // Named after the source whose counting (or no longer counting) made the change.
                boolean intDecides = s.byInt && (after == signal.usesInt());
                CongestionSource source = intDecides ? CongestionSource.INT_QUEUE
                        : s.byCollector ? CongestionSource.COLLECTOR : CongestionSource.LOAD_VIEW;
                out.add(new Transition(e.getKey(), after ? PlanckCongestionEvent.Type.CONGESTED
                        : PlanckCongestionEvent.Type.CLEARED, source, after && intDecides ? 1.0 : 0));
            }
        }
        return out;
    }

    /**
     * Which sources count.
     *
     * @return the congestion signal in force
     */
    public synchronized CongestionSignal signal() {
        return signal;
    }

    private Optional<Transition> transition(ConnectPoint port, PortState s, boolean before,
                                            CongestionSource source, double utilization) {
        boolean after = s.congested();
        if (!s.anyMark()) {
            states.remove(port);
        }
        if (before == after) {
            return Optional.empty();
        }
        return Optional.of(new Transition(port, after ? PlanckCongestionEvent.Type.CONGESTED
                : PlanckCongestionEvent.Type.CLEARED, source, utilization));
    }

    /**
     * Whether a port is congested.
     *
     * @param port the port
     * @return true if either source says so
     */
    public synchronized boolean isCongested(ConnectPoint port) {
        PortState s = states.get(port);
        return s != null && s.congested();
    }

    /**
     * Congested ports.
     *
     * @return a copy of the set
     */
    public synchronized Set<ConnectPoint> congestedPorts() {
        ImmutableSet.Builder<ConnectPoint> b = ImmutableSet.builder();
        states.forEach((p, s) -> {
            if (s.congested()) {
                b.add(p);
            }
        });
        return b.build();
    }
}

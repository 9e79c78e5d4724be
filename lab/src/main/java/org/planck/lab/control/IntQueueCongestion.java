package org.planck.lab.control;

import org.onosproject.net.ConnectPoint;
import org.planck.api.config.CongestionSignal;
import org.planck.api.inband.IntPortState;
import org.planck.api.telemetry.IntPortSignal;
import org.planck.app.inband.algo.IntPortRules;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The lab controller's INT port state: the app's {@link IntPortRules} over the INT_PORT signals of
 * one run (as {@code IntPortStateManager} keeps them in ONOS, without the cluster map), and which
 * congestion signal TE acts on (the network config's {@code congestionSignal}). Not thread-safe;
 * the controller calls it under its lock.
 */
public final class IntQueueCongestion {
    /** Most ports kept (the k=4 fat tree has 80; signals of further ports are counted). */
    public static final int MAX_PORTS = 4096;

    private final CongestionSignal signal;
    private final IntPortRules rules = new IntPortRules();
    private final Map<ConnectPoint, IntPortState> ports = new HashMap<>();
    private long signals;
    private long stale;
    private long refused;
    private long congestions;

    /**
     * INT port state under a congestion signal.
     *
     * @param signal          which congestion TE acts on
     * @param queueThreshold  occupancy at or above which a port is congested (the switch's unit), >= 1
     * @param queueHysteresis cleared below threshold minus this, [0, threshold)
     */
    public IntQueueCongestion(CongestionSignal signal, long queueThreshold, long queueHysteresis) {
        this.signal = checkNotNull(signal, "signal");
        rules.configure(queueThreshold, queueHysteresis);
    }

    /**
     * Mirror samples only, the lab's default: INT signals are kept but move nothing.
     *
     * @return state
     */
    public static IntQueueCongestion mirrorsOnly() {
        return new IntQueueCongestion(CongestionSignal.MIRRORS, 1000, 200);
    }

    /** What a run's controller starts with: the congestion signal and the INT queue thresholds. */
    public static final class Settings {
        private final CongestionSignal signal;
        private final long queueThreshold;
        private final long queueHysteresis;

        /**
         * Settings, checked now.
         *
         * @param signal          which congestion TE acts on
         * @param queueThreshold  occupancy at or above which a port is congested, >= 1
         * @param queueHysteresis cleared below threshold minus this, [0, threshold)
         */
        public Settings(CongestionSignal signal, long queueThreshold, long queueHysteresis) {
            this.signal = checkNotNull(signal, "signal");
            new IntPortRules().configure(queueThreshold, queueHysteresis);
            this.queueThreshold = queueThreshold;
            this.queueHysteresis = queueHysteresis;
        }

        public CongestionSignal signal() {
            return signal;
        }

        public long queueThreshold() {
            return queueThreshold;
        }

        public long queueHysteresis() {
            return queueHysteresis;
        }

        /**
         * A fresh port state under these settings (one per run).
         *
         * @return state
         */
        public IntQueueCongestion newState() {
            return new IntQueueCongestion(signal, queueThreshold, queueHysteresis);
        }
    }

    public CongestionSignal signal() {
        return signal;
    }

    /**
     * Applies one signal of a known port.
     *
     * @param s         the signal
     * @param collector its collector
     * @param nowMillis controller time
     * @return the port's new congestion mark when it changed and INT counts for TE, else empty
     */
    public Optional<Boolean> apply(IntPortSignal s, String collector, long nowMillis) {
        signals++;
        IntPortState current = ports.get(s.port());
        if (current == null) {
            if (ports.size() >= MAX_PORTS) {
                refused++;
                return Optional.empty();
            }
            current = IntPortState.empty(s.port());
        }
        Optional<IntPortState> next = rules.apply(current, s, collector, nowMillis);
        if (next.isEmpty()) {
            stale++;
            return Optional.empty();
        }
        ports.put(s.port(), next.get());
        boolean was = current.queueCongested();
        boolean now = next.get().queueCongested();
        if (was == now || !signal.usesInt()) {
            return Optional.empty();
        }
        if (now) {
            congestions++;
        }
        return Optional.of(now);
    }

    /**
     * INT state of a port.
     *
     * @param port egress port
     * @return its state, if INT reported it
     */
    public Optional<IntPortState> port(ConnectPoint port) {
        return Optional.ofNullable(ports.get(port));
    }

    /** INT_PORT signals applied or refused. */
    public long signals() {
        return signals;
    }

    /** Signals older than the port's newest of their kind (ignored). */
    public long stale() {
        return stale;
    }

    /** Signals of ports beyond {@link #MAX_PORTS} (dropped). */
    public long refused() {
        return refused;
    }

    /** Times a port became INT queue congested while INT counted for TE. */
    public long congestions() {
        return congestions;
    }
}

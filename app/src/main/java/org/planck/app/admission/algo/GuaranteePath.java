package org.planck.app.admission.algo;

import com.google.common.collect.ImmutableList;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.List;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A shadow path as admission control sees it: its index toward the destination and its hops,
 * each a switch and the capacity of the port it leaves by (the last hop delivers to the host).
 */
public final class GuaranteePath {
    private final int index;
    private final List<Hop> hops;

    /**
     * A path.
     *
     * @param index shadow path index, >= 0
     * @param hops  switches in order, at least one
     */
    public GuaranteePath(int index, List<Hop> hops) {
        checkArgument(index >= 0, "index must be >= 0");
        checkArgument(!hops.isEmpty(), "a path has at least one hop");
        this.index = index;
        this.hops = ImmutableList.copyOf(hops);
    }

    public int index() {
        return index;
    }

    public List<Hop> hops() {
        return hops;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof GuaranteePath)) {
            return false;
        }
        GuaranteePath p = (GuaranteePath) o;
        return index == p.index && hops.equals(p.hops);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index, hops);
    }

    @Override
    public String toString() {
        return "GuaranteePath{" + index + ": " + hops + "}";
    }

    /** One switch on a path and the port it sends the flow out of. */
    public static final class Hop {
        private final DeviceId device;
        private final PortNumber outPort;
        private final long outCapacityBps;

        /**
         * A hop.
         *
         * @param device         switch
         * @param outPort        egress port
         * @param outCapacityBps egress port capacity, bits/s, > 0
         */
        public Hop(DeviceId device, PortNumber outPort, long outCapacityBps) {
            this.device = checkNotNull(device, "device");
            this.outPort = checkNotNull(outPort, "outPort");
            checkArgument(outCapacityBps > 0, "capacity must be > 0");
            this.outCapacityBps = outCapacityBps;
        }

        public DeviceId device() {
            return device;
        }

        public PortNumber outPort() {
            return outPort;
        }

        public long outCapacityBps() {
            return outCapacityBps;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Hop)) {
                return false;
            }
            Hop h = (Hop) o;
            return device.equals(h.device) && outPort.equals(h.outPort) && outCapacityBps == h.outCapacityBps;
        }

        @Override
        public int hashCode() {
            return Objects.hash(device, outPort, outCapacityBps);
        }

        @Override
        public String toString() {
            return device + "/" + outPort;
        }
    }
}

package org.planck.lab.control;

import org.onlab.packet.VlanId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.CollectorForwardingMap;
import org.planck.api.PortCapacity;
import org.planck.api.SwitchForwarding;
import org.planck.api.fabric.RoutingPlan;
import org.planck.lab.emu.EmulatorTopology;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The forwarding map a collector gets for the emulated fabric: the plan's (switch, MAC) -> port
 * entries ({@link org.planck.api.fabric.ForwardingMap}), every port's capacity, RSPAN VLAN =
 * switch number, and the mirror port numbered after the switch's last port.
 */
public final class CollectorForwarding {
    private CollectorForwarding() {
    }

    /**
     * The mirror port of a switch: one past its highest port.
     *
     * @param topology fabric
     * @param device   switch
     * @return port number
     */
    public static long mirrorPort(EmulatorTopology topology, DeviceId device) {
        return topology.ports(device).isEmpty() ? 1 : Collections.max(topology.ports(device)) + 1;
    }

    /**
     * Builds the map.
     *
     * @param collectorId collector id
     * @param generation  map generation
     * @param topology    fabric
     * @param plan        routing plan in force
     * @return map for every switch of the fabric
     */
    public static CollectorForwardingMap build(String collectorId, long generation, EmulatorTopology topology,
                                      RoutingPlan plan) {
        org.planck.api.fabric.ForwardingMap egress = org.planck.api.fabric.ForwardingMap.of(plan);
        List<SwitchForwarding> switches = new ArrayList<>();
        for (DeviceId d : topology.graph().switches()) {
            List<PortCapacity> ports = new ArrayList<>();
            for (long p : topology.ports(d)) {
                PortNumber n = PortNumber.portNumber(p);
                long cap = topology.graph().portCapacityBps(new ConnectPoint(d, n)).orElse(topology.linkBps());
                ports.add(new PortCapacity(n, cap));
            }
            switches.add(new SwitchForwarding(d, VlanId.vlanId((short) EmulatorTopology.switchNumber(d)),
                                              PortNumber.portNumber(mirrorPort(topology, d)), ports,
                                              egress.entries(d)));
        }
        return new CollectorForwardingMap(collectorId, generation, switches);
    }
}

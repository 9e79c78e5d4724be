package org.planck.api;

import org.onlab.packet.MacAddress;
import org.onosproject.event.ListenerService;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.FlowRule;

import java.util.Collection;
import java.util.Map;

/**
 * Shadow-MAC routes: k diverse paths towards every host, each named by a shadow MAC, and
 * the flow rules that realise them.
 */
public interface ShadowRouteService extends ListenerService<ShadowRouteEvent, ShadowRouteListener> {

    /**
     * Egress port per destination MAC (real and shadow) on a switch, as Planck's rules
     * forward frames there: the basis of the collectors' forwarding maps.
     *
     * @param deviceId switch
     * @return destination MAC to egress port; empty if Planck has no rules on the switch
     */
    Map<MacAddress, PortNumber> egressEntries(DeviceId deviceId);

    /**
     * Every flow rule of the current plan, on all switches (each is installed by the
     * switch's master).
     *
     * @return the rules
     */
    Collection<FlowRule> plannedRules();
}

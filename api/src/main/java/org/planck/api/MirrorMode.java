package org.planck.api;

/**
 * How a switch's traffic reaches its mirror port.
 */
public enum MirrorMode {
    /**
     * The switch mirrors every other port itself (ONOS MirroringConfig behaviour, e.g. OVSDB):
     * all traffic of the switch, in and out, is copied, tagged with the RSPAN VLAN.
     */
    SWITCH_MIRROR,
    /**
     * OpenFlow-only switch: Planck's own rules on it carry an extra output to the mirror
     * port, tagged with the RSPAN VLAN. Only traffic routed by Planck is mirrored, as it leaves.
     */
    FLOW_OUTPUT
}

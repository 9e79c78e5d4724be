package org.planck.app.routing;

import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Host;
import org.onosproject.net.Link;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.EthCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.flow.instructions.L2ModificationInstruction;
import org.planck.app.TestFlowRuleStore;
import org.planck.app.TestHostService;
import org.planck.app.TestLinkService;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * Forwards a frame through the emitted ONOS flow rules as OpenFlow switches would: the
 * highest-priority rule matching the frame's MACs, its actions in order (set eth_dst, push
 * and set VLAN, outputs), then across the link on the output port, until the frame reaches
 * a host port. Fails on no match, two matches at one priority, dead ends and loops.
 */
final class FlowRuleWalk {

    /** A mirrored copy a rule emitted. */
    static final class MirrorCopy {
        final DeviceId device;
        final PortNumber port;
        final VlanId vlan;
        final MacAddress ethDst;

        MirrorCopy(DeviceId device, PortNumber port, VlanId vlan, MacAddress ethDst) {
            this.device = device;
            this.port = port;
            this.vlan = vlan;
            this.ethDst = ethDst;
        }
    }

    /** Where a frame ended up and how. */
    static final class Delivery {
        final Host host;
        final MacAddress ethDst;
        final List<DeviceId> switches;
        final List<ConnectPoint> egress;
        final List<MirrorCopy> copies;

        Delivery(Host host, MacAddress ethDst, List<DeviceId> switches, List<ConnectPoint> egress,
                 List<MirrorCopy> copies) {
            this.host = host;
            this.ethDst = ethDst;
            this.switches = switches;
            this.egress = egress;
            this.copies = copies;
        }
    }

    private final Map<DeviceId, Map<MacAddress, List<FlowRule>>> byDst = new HashMap<>();
    private final TestLinkService links;
    private final Map<ConnectPoint, Host> hostAt = new HashMap<>();
    private final int maxHops;

    FlowRuleWalk(TestFlowRuleStore store, TestLinkService links, TestHostService hosts) {
        this.links = links;
        store.snapshot().forEach((d, rules) -> {
            Map<MacAddress, List<FlowRule>> m = new HashMap<>();
            for (FlowRule r : rules) {
                EthCriterion dst = (EthCriterion) r.selector().getCriterion(Criterion.Type.ETH_DST);
                assertNotNull("every Planck rule matches eth_dst: " + r, dst);
                m.computeIfAbsent(dst.mac(), x -> new ArrayList<>()).add(r);
            }
            byDst.put(d, m);
        });
        hosts.getHosts().forEach(h -> hostAt.put(new ConnectPoint(h.location().deviceId(), h.location().port()), h));
        this.maxHops = byDst.size() + 2;
    }

    private FlowRule match(DeviceId at, MacAddress src, MacAddress dst) {
        FlowRule best = null;
        boolean tie = false;
        for (FlowRule r : byDst.getOrDefault(at, Map.of()).getOrDefault(dst, List.of())) {
            boolean matches = true;
            for (Criterion c : r.selector().criteria()) {
                if (c.type() == Criterion.Type.ETH_SRC) {
                    matches &= ((EthCriterion) c).mac().equals(src);
                } else if (c.type() != Criterion.Type.ETH_DST) {
                    matches = false; // IP and transport matches never match a bare Ethernet frame
                }
            }
            if (!matches) {
                continue;
            }
            if (best == null || r.priority() > best.priority()) {
                best = r;
                tie = false;
            } else if (r.priority() == best.priority()) {
                tie = true;
            }
        }
        assertTrue("two rules of one priority match " + src + "->" + dst + " at " + at, !tie);
        return best;
    }

    Delivery send(ConnectPoint from, MacAddress src, MacAddress dst) {
        DeviceId at = from.deviceId();
        MacAddress ethDst = dst;
        List<DeviceId> switches = new ArrayList<>();
        List<ConnectPoint> egress = new ArrayList<>();
        List<MirrorCopy> copies = new ArrayList<>();
        for (int hop = 0; hop <= maxHops; hop++) {
            switches.add(at);
            FlowRule rule = match(at, src, ethDst);
            if (rule == null) {
                fail("no rule at " + at + " for " + src + "->" + ethDst + " (sent to " + dst + ")");
            }
            VlanId vlan = VlanId.NONE;
            PortNumber out = null;
            for (Instruction i : rule.treatment().allInstructions()) {
                if (i.type() == Instruction.Type.L2MODIFICATION) {
                    L2ModificationInstruction l2 = (L2ModificationInstruction) i;
                    switch (l2.subtype()) {
                        case ETH_DST:
                            assertEquals("rewrites come before outputs", VlanId.NONE, vlan);
                            ethDst = ((L2ModificationInstruction.ModEtherInstruction) l2).mac();
                            break;
                        case VLAN_PUSH:
                            break;
                        case VLAN_ID:
                            vlan = ((L2ModificationInstruction.ModVlanIdInstruction) l2).vlanId();
                            break;
                        default:
                            fail("unexpected action " + i + " in " + rule);
                    }
                } else if (i.type() == Instruction.Type.OUTPUT) {
                    PortNumber p = ((Instructions.OutputInstruction) i).port();
                    if (vlan.equals(VlanId.NONE)) {
                        assertTrue("one forwarding output per rule: " + rule, out == null);
                        out = p;
                    } else {
                        copies.add(new MirrorCopy(at, p, vlan, ethDst));
                    }
                } else {
                    fail("unexpected instruction " + i + " in " + rule);
                }
            }
            assertNotNull("rule without output " + rule, out);
            ConnectPoint cp = new ConnectPoint(at, out);
            egress.add(cp);
            Host h = hostAt.get(cp);
            if (h != null) {
                return new Delivery(h, ethDst, switches, egress, copies);
            }
            Link l = links.link(cp);
            if (l == null) {
                fail("dead end: " + cp + " has neither link nor host (" + src + "->" + dst + ")");
            }
            at = l.dst().deviceId();
        }
        fail("loop: " + src + "->" + dst + " visits " + switches);
        return null;
    }
}

package org.planck.lab.openflow;

import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.VlanId;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.EthCriterion;
import org.onosproject.net.flow.criteria.EthTypeCriterion;
import org.onosproject.net.flow.criteria.IPCriterion;
import org.onosproject.net.flow.criteria.IPProtocolCriterion;
import org.onosproject.net.flow.criteria.TcpPortCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.flow.instructions.L2ModificationInstruction;
import org.planck.api.FlowKey;
import org.planck.api.MirrorMode;
import org.planck.api.MirrorSession;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.RuleKind;
import org.planck.app.routing.ShadowFlowRules;
import org.planck.app.routing.algo.FatTreeFabric;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;
import org.planck.lab.openflow.FlowModTranslation.FlowOutputMirror;
import org.projectfloodlight.openflow.protocol.OFFlowAdd;
import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.protocol.action.OFAction;
import org.projectfloodlight.openflow.protocol.action.OFActionOutput;
import org.projectfloodlight.openflow.protocol.action.OFActionPushVlan;
import org.projectfloodlight.openflow.protocol.action.OFActionSetField;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionApplyActions;
import org.projectfloodlight.openflow.protocol.match.Match;
import org.projectfloodlight.openflow.protocol.match.MatchField;
import org.projectfloodlight.openflow.protocol.match.MatchFields;
import org.projectfloodlight.openflow.protocol.oxm.OFOxm;
import org.projectfloodlight.openflow.protocol.oxm.OFOxmEthDst;
import org.projectfloodlight.openflow.protocol.oxm.OFOxmVlanVid;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * Planned rule -> OF 1.3 flow-mod, checked against the ONOS flow rule the app makes of the same
 * planned rule ({@link ShadowFlowRules}): the flow-mod's match fields must be the flow rule's
 * criteria, its apply-actions the flow rule's immediate instructions in order, its priority the
 * rule's priority.
 */
public class FlowModTranslationTest {
    private static final DefaultApplicationId APP = new DefaultApplicationId(7, "org.planck.app");
    private final FatTreeFabric fabric = FatTreeFabric.of(4);
    private final RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4).plan(fabric.graph());

    @Test
    public void everyPlannedRuleBecomesTheFlowModOnosWouldSend() {
        Set<RuleKind> kinds = EnumSet.noneOf(RuleKind.class);
        for (PlannedRule r : plan.rules()) {
            assertSameAsOnos(r, null, null);
            kinds.add(r.kind());
        }
        assertEquals(EnumSet.of(RuleKind.SHADOW_TRANSIT, RuleKind.SHADOW_DELIVERY, RuleKind.HOST_DELIVERY,
                                RuleKind.INGRESS_HOST_PAIR), kinds);
    }

    @Test
    public void perFlowRuleMatchesTheFiveTupleWithItsPrerequisites() {
        FabricHost src = plan.graph().hosts().iterator().next();
        FabricHost dst = otherEdgeHost(src);
        FlowKey flow = FlowKey.of(src.ips().iterator().next(), dst.ips().iterator().next(), 6, 40000, 5201);
        PlannedRule r = plan.flowRule(flow, src.mac(), dst.mac(), 1);
        assertSameAsOnos(r, null, null);
        Match m = FlowModTranslation.match(r);
        assertEquals(Set.of(MatchFields.ETH_DST, MatchFields.ETH_TYPE, MatchFields.IPV4_SRC, MatchFields.IPV4_DST,
                            MatchFields.IP_PROTO, MatchFields.TCP_SRC, MatchFields.TCP_DST), fieldIds(m));
        assertEquals(40000, m.get(MatchField.TCP_SRC).getPort());
        assertEquals(32000, FlowModTranslation.add(r, null, 1, 2).getPriority());
    }

    @Test
    public void flowOutputMirrorAppendsPushVlanSetVidOutputAfterTheRewrite() {
        PlannedRule delivery = plan.rules().stream().filter(r -> r.kind() == RuleKind.SHADOW_DELIVERY)
                .findFirst().orElseThrow();
        MirrorSession s = new MirrorSession(delivery.device(), PortNumber.portNumber(5), VlanId.vlanId((short) 301),
                                            MirrorMode.FLOW_OUTPUT, List.of(), MirrorSession.State.ACTIVE, "");
        assertSameAsOnos(delivery, new FlowOutputMirror(5, 301), s);
        List<String> acts = actions(FlowModTranslation.add(delivery, new FlowOutputMirror(5, 301), 1, 1));
        assertEquals(List.of("set eth_dst=" + delivery.setEthDst().get().toString().toLowerCase(),
                             "output " + delivery.outPort().toLong(), "push_vlan 0x8100", "set vlan_vid=301",
                             "output 5"), acts);
    }

    @Test
    public void flowAddIsPermanentTableZeroWithSendFlowRem() {
        PlannedRule r = plan.rules().get(0);
        OFFlowAdd add = FlowModTranslation.add(r, null, 0x1234, 99);
        assertEquals(99, add.getXid());
        assertEquals(0x1234, add.getCookie().getValue());
        assertEquals(0, add.getIdleTimeout());
        assertEquals(0, add.getHardTimeout());
        assertEquals(0, add.getTableId().getValue());
        assertEquals(EnumSet.of(OFFlowModFlags.SEND_FLOW_REM), add.getFlags());
        assertEquals(FlowModTranslation.match(r), FlowModTranslation.delete(r, 5).getMatch());
        assertEquals(r.priority(), FlowModTranslation.delete(r, 5).getPriority());
    }

    @Test(expected = IllegalArgumentException.class)
    public void mirrorVlanOutOfRangeIsRefused() {
        new FlowOutputMirror(5, 4095);
    }

    private FabricHost otherEdgeHost(FabricHost src) {
        for (FabricHost h : plan.graph().hosts()) {
            if (!h.edge().equals(src.edge())) {
                return h;
            }
        }
        throw new AssertionError("no host on another edge");
    }

    private static Set<Object> fieldIds(Match m) {
        Set<Object> ids = new java.util.HashSet<>();
        m.getMatchFields().forEach(f -> ids.add(f.id));
        return ids;
    }

    private static void assertSameAsOnos(PlannedRule r, FlowOutputMirror mirror, MirrorSession session) {
        FlowRule onos = ShadowFlowRules.flowRule(r, APP, session);
        OFFlowAdd add = FlowModTranslation.add(r, mirror, 1, 1);
        assertEquals(r.toString(), onos.priority(), add.getPriority());
        assertEquals(r.toString(), criteria(onos), matchFields(add.getMatch()));
        assertEquals(r.toString(), instructions(onos), actions(add));
    }

    private static Set<String> criteria(FlowRule rule) {
        Set<String> out = new TreeSet<>();
        for (Criterion c : rule.selector().criteria()) {
            switch (c.type()) {
                case ETH_DST:
                case ETH_SRC:
                    out.add(c.type().name().toLowerCase() + "=" + ((EthCriterion) c).mac().toString().toLowerCase());
                    break;
                case ETH_TYPE:
                    out.add("eth_type=" + Integer.toHexString(((EthTypeCriterion) c).ethType().toShort() & 0xffff));
                    break;
                case IPV4_SRC:
                case IPV4_DST:
                    out.add(c.type().name().toLowerCase() + "=" + ((IPCriterion) c).ip().address());
                    break;
                case IP_PROTO:
                    out.add("ip_proto=" + ((IPProtocolCriterion) c).protocol());
                    break;
                case TCP_SRC:
                case TCP_DST:
                    out.add(c.type().name().toLowerCase() + "=" + ((TcpPortCriterion) c).tcpPort().toInt());
                    break;
                default:
                    throw new AssertionError("criterion the lab does not translate: " + c);
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Set<String> matchFields(Match m) {
        Set<String> out = new TreeSet<>();
        for (MatchField<?> f : m.getMatchFields()) {
            Object v = m.get(f);
            String name = f.getName().toLowerCase();
            if (f.id == MatchFields.ETH_TYPE) {
                out.add(name + "=" + Integer.toHexString(m.get(MatchField.ETH_TYPE).getValue()));
            } else if (f.id == MatchFields.IP_PROTO) {
                out.add(name + "=" + m.get(MatchField.IP_PROTO).getIpProtocolNumber());
            } else if (f.id == MatchFields.TCP_SRC || f.id == MatchFields.TCP_DST) {
                out.add(name + "=" + ((org.projectfloodlight.openflow.types.TransportPort) v).getPort());
            } else {
                out.add(name + "=" + v.toString().toLowerCase());
            }
        }
        return out;
    }

    private static List<String> instructions(FlowRule rule) {
        List<String> out = new ArrayList<>();
        for (Instruction i : rule.treatment().immediate()) {
            if (i instanceof Instructions.OutputInstruction) {
                out.add("output " + ((Instructions.OutputInstruction) i).port().toLong());
            } else if (i instanceof L2ModificationInstruction.ModVlanHeaderInstruction) {
                L2ModificationInstruction.ModVlanHeaderInstruction v = (L2ModificationInstruction.ModVlanHeaderInstruction) i;
                out.add("push_vlan 0x" + Integer.toHexString(v.ethernetType().toShort() & 0xffff));
            } else if (i instanceof L2ModificationInstruction.ModEtherInstruction) {
                out.add("set eth_dst=" + ((L2ModificationInstruction.ModEtherInstruction) i).mac().toString().toLowerCase());
            } else if (i instanceof L2ModificationInstruction.ModVlanIdInstruction) {
                out.add("set vlan_vid=" + ((L2ModificationInstruction.ModVlanIdInstruction) i).vlanId().toShort());
            } else {
                throw new AssertionError("instruction the lab does not translate: " + i);
            }
        }
        return out;
    }

    static List<String> actions(OFFlowAdd add) {
        assertEquals(1, add.getInstructions().size());
        assertTrue(add.getInstructions().get(0) instanceof OFInstructionApplyActions);
        List<String> out = new ArrayList<>();
        for (OFAction a : ((OFInstructionApplyActions) add.getInstructions().get(0)).getActions()) {
            if (a instanceof OFActionOutput) {
                out.add("output " + ((OFActionOutput) a).getPort().getPortNumber());
            } else if (a instanceof OFActionPushVlan) {
                out.add("push_vlan 0x" + Integer.toHexString(((OFActionPushVlan) a).getEthertype().getValue()));
            } else if (a instanceof OFActionSetField) {
                OFOxm<?> f = ((OFActionSetField) a).getField();
                if (f instanceof OFOxmEthDst) {
                    out.add("set eth_dst=" + ((OFOxmEthDst) f).getValue().toString().toLowerCase());
                } else if (f instanceof OFOxmVlanVid) {
                    out.add("set vlan_vid=" + ((OFOxmVlanVid) f).getValue().getVlan());
                } else {
                    out.add("set ?" + f);
                }
            } else {
                out.add("? " + a);
            }
        }
        return Collections.unmodifiableList(out);
    }
}

package org.planck.lab.openflow;

import org.planck.api.FlowKey;
import org.planck.api.fabric.PlannedRule;
import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowAdd;
import org.projectfloodlight.openflow.protocol.OFFlowDelete;
import org.projectfloodlight.openflow.protocol.OFFlowDeleteStrict;
import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.protocol.action.OFAction;
import org.projectfloodlight.openflow.protocol.instruction.OFInstruction;
import org.projectfloodlight.openflow.protocol.match.Match;
import org.projectfloodlight.openflow.protocol.match.MatchField;
import org.projectfloodlight.openflow.types.EthType;
import org.projectfloodlight.openflow.types.IPv4Address;
import org.projectfloodlight.openflow.types.IPv6Address;
import org.projectfloodlight.openflow.types.IpProtocol;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFBufferId;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.OFVlanVidMatch;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.TransportPort;
import org.projectfloodlight.openflow.types.U64;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;

/**
 * Planned rules as OpenFlow 1.3 flow-mods, built the way ONOS's OpenFlow provider
 * ({@code FlowModBuilderVer13}) builds the flow rule {@code ShadowFlowRules.flowRule} makes of
 * the same planned rule: table 0, permanent (idle and hard timeout 0), {@code SEND_FLOW_REM},
 * no buffer, the rule's priority; the selector's fields as exact OXM matches (IP and transport
 * fields with their eth_type/ip_proto prerequisites); the treatment as one apply-actions
 * instruction: {@code set_field eth_dst} if the rule rewrites, then {@code output}; a switch
 * mirroring by flow output gets {@code push_vlan 0x8100, set_field vlan_vid, output mirror port}
 * after that ({@code MirrorOutput.decorate}).
 */
public final class FlowModTranslation {
    /** The factory every lab flow-mod is built with. */
    public static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);

    private static final int IP_PROTO_TCP = 6;
    private static final int IP_PROTO_UDP = 17;

    private FlowModTranslation() {
    }

    /** A switch's flow-output mirror: where copies go, and the RSPAN VLAN naming the switch in them. */
    public static final class FlowOutputMirror {
        private final long port;
        private final int rspanVlan;

        /**
         * A mirror.
         *
         * @param port      mirror port
         * @param rspanVlan VLAN id, 1..4094
         */
        public FlowOutputMirror(long port, int rspanVlan) {
            if (port <= 0 || port > 0xffffff00L) {
                throw new IllegalArgumentException("mirror port out of range: " + port);
            }
            if (rspanVlan < 1 || rspanVlan > 4094) {
                throw new IllegalArgumentException("RSPAN VLAN out of range: " + rspanVlan);
            }
            this.port = port;
            this.rspanVlan = rspanVlan;
        }

        public long port() {
            return port;
        }

        public int rspanVlan() {
            return rspanVlan;
        }
    }

    /**
     * The match of a planned rule.
     *
     * @param rule planned rule
     * @return OpenFlow 1.3 match
     */
    public static Match match(PlannedRule rule) {
        Match.Builder m = OF13.buildMatch();
        m.setExact(MatchField.ETH_DST, MacAddress.of(rule.ethDst().toBytes()));
        rule.ethSrc().ifPresent(src -> m.setExact(MatchField.ETH_SRC, MacAddress.of(src.toBytes())));
        rule.flow().ifPresent(f -> matchFlow(m, f));
        return m.build();
    }

    private static void matchFlow(Match.Builder m, FlowKey f) {
        if (f.src().isIp4()) {
            m.setExact(MatchField.ETH_TYPE, EthType.IPv4);
            m.setExact(MatchField.IPV4_SRC, IPv4Address.of(f.src().toOctets()));
            m.setExact(MatchField.IPV4_DST, IPv4Address.of(f.dst().toOctets()));
        } else {
            m.setExact(MatchField.ETH_TYPE, EthType.IPv6);
            m.setExact(MatchField.IPV6_SRC, IPv6Address.of(f.src().toOctets()));
            m.setExact(MatchField.IPV6_DST, IPv6Address.of(f.dst().toOctets()));
        }
        m.setExact(MatchField.IP_PROTO, IpProtocol.of((short) f.proto()));
        if (f.proto() == IP_PROTO_TCP) {
            m.setExact(MatchField.TCP_SRC, TransportPort.of(f.srcPort()));
            m.setExact(MatchField.TCP_DST, TransportPort.of(f.dstPort()));
        } else if (f.proto() == IP_PROTO_UDP) {
            m.setExact(MatchField.UDP_SRC, TransportPort.of(f.srcPort()));
            m.setExact(MatchField.UDP_DST, TransportPort.of(f.dstPort()));
        }
    }

    /**
     * The actions of a planned rule, in order.
     *
     * @param rule   planned rule
     * @param mirror the switch's flow-output mirror, or null
     * @return actions
     */
    public static List<OFAction> actions(PlannedRule rule, FlowOutputMirror mirror) {
        List<OFAction> actions = new ArrayList<>(5);
        rule.setEthDst().ifPresent(mac -> actions.add(
                OF13.actions().setField(OF13.oxms().ethDst(MacAddress.of(mac.toBytes())))));
        actions.add(OF13.actions().buildOutput().setPort(OFPort.of((int) rule.outPort().toLong())).build());
        if (mirror != null) {
            actions.add(OF13.actions().pushVlan(EthType.VLAN_FRAME));
            actions.add(OF13.actions().setField(OF13.oxms().vlanVid(OFVlanVidMatch.ofVlan(mirror.rspanVlan()))));
            actions.add(OF13.actions().buildOutput().setPort(OFPort.of((int) mirror.port())).build());
        }
        return actions;
    }

    /**
     * The flow-add installing a planned rule (it replaces a rule with the same match and priority).
     *
     * @param rule   planned rule
     * @param mirror the switch's flow-output mirror, or null
     * @param cookie the rule's cookie (ONOS puts the flow id here)
     * @param xid    transaction id
     * @return flow-add
     */
    public static OFFlowAdd add(PlannedRule rule, FlowOutputMirror mirror, long cookie, long xid) {
        List<OFInstruction> instructions =
                Collections.singletonList(OF13.instructions().applyActions(actions(rule, mirror)));
        return OF13.buildFlowAdd()
                .setXid(xid)
                .setCookie(U64.of(cookie))
                .setBufferId(OFBufferId.NO_BUFFER)
                .setIdleTimeout(0)
                .setHardTimeout(0)
                .setPriority(rule.priority())
                .setTableId(TableId.of(0))
                .setFlags(EnumSet.of(OFFlowModFlags.SEND_FLOW_REM))
                .setMatch(match(rule))
                .setInstructions(instructions)
                .build();
    }

    /**
     * The strict delete removing a planned rule (same match and priority).
     *
     * @param rule planned rule
     * @param xid  transaction id
     * @return flow-delete-strict
     */
    public static OFFlowDeleteStrict delete(PlannedRule rule, long xid) {
        return OF13.buildFlowDeleteStrict()
                .setXid(xid)
                .setPriority(rule.priority())
                .setTableId(TableId.of(0))
                .setOutPort(OFPort.ANY)
                .setOutGroup(OFGroup.ANY)
                .setMatch(match(rule))
                .build();
    }

    /**
     * The delete of every flow in every table: what a (re)connected switch gets before its rules,
     * so rules of an earlier run or a half-finished install never linger.
     *
     * @param xid transaction id
     * @return flow-delete
     */
    public static OFFlowDelete deleteAll(long xid) {
        return OF13.buildFlowDelete()
                .setXid(xid)
                .setTableId(TableId.ALL)
                .setOutPort(OFPort.ANY)
                .setOutGroup(OFGroup.ANY)
                .setMatch(OF13.buildMatch().build())
                .build();
    }
}

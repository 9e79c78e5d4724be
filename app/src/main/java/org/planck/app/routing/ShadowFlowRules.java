package org.planck.app.routing;

import org.onlab.packet.Ethernet;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.TpPort;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.TrafficTreatment;
import org.planck.api.FlowKey;
import org.planck.api.MirrorSession;
import org.planck.api.fabric.PlannedRule;
import org.planck.app.mirror.MirrorOutput;

/**
 * Translates planned rules one-to-one into ONOS flow rules: single table, permanent,
 * tagged with the Planck application id. Priorities are the planner's
 * ({@link org.planck.api.fabric.RuleKind}): tree hops and deliveries 30000, host-pair
 * ingress defaults 31000, per-flow ingress (TE) 32000 — all above reactive forwarding
 * (fwd uses 10) so Planck's rules win wherever they match.
 */
public final class ShadowFlowRules {

    private static final int IP_PROTO_TCP = 6;
    private static final int IP_PROTO_UDP = 17;

    private ShadowFlowRules() {
    }

    /**
     * The flow rule of a planned rule.
     *
     * @param rule    planned rule
     * @param appId   Planck's application id
     * @param mirror  the switch's mirror session (adds the mirror output in FLOW_OUTPUT mode), or null
     * @return flow rule
     */
    public static FlowRule flowRule(PlannedRule rule, ApplicationId appId, MirrorSession mirror) {
        TrafficSelector.Builder selector = DefaultTrafficSelector.builder().matchEthDst(rule.ethDst());
        rule.ethSrc().ifPresent(selector::matchEthSrc);
        rule.flow().ifPresent(f -> matchFlow(selector, f));
        TrafficTreatment.Builder treatment = DefaultTrafficTreatment.builder();
        rule.setEthDst().ifPresent(treatment::setEthDst);
        treatment.setOutput(rule.outPort());
        TrafficSelector built = selector.build();
        // The id fromApp(appId) would compute, without its String.format per address octet.
        return DefaultFlowRule.builder()
                .forDevice(rule.device())
                .withSelector(built)
                .withTreatment(MirrorOutput.decorate(treatment.build(), mirror))
                .withPriority(rule.priority())
                .withCookie(OnosFlowIds.flowId(appId, rule.device(), built, rule.priority(), FlowRule.DEFAULT_TABLE))
                .makePermanent()
                .build();
    }

    private static void matchFlow(TrafficSelector.Builder selector, FlowKey f) {
        boolean v4 = f.src().isIp4();
        selector.matchEthType(v4 ? Ethernet.TYPE_IPV4 : Ethernet.TYPE_IPV6);
        IpPrefix src = IpPrefix.valueOf(f.src(), v4 ? 32 : 128);
        IpPrefix dst = IpPrefix.valueOf(f.dst(), v4 ? 32 : 128);
        if (v4) {
            selector.matchIPSrc(src).matchIPDst(dst);
        } else {
            selector.matchIPv6Src(src).matchIPv6Dst(dst);
        }
        selector.matchIPProtocol((byte) f.proto());
        if (f.proto() == IP_PROTO_TCP) {
            selector.matchTcpSrc(TpPort.tpPort(f.srcPort())).matchTcpDst(TpPort.tpPort(f.dstPort()));
        } else if (f.proto() == IP_PROTO_UDP) {
            selector.matchUdpSrc(TpPort.tpPort(f.srcPort())).matchUdpDst(TpPort.tpPort(f.dstPort()));
        }
    }
}

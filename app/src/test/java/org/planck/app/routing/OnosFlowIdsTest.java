package org.planck.app.routing;

import org.junit.After;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficSelector;
import org.planck.api.FlowKey;
import org.planck.api.MirrorMode;
import org.planck.api.MirrorSession;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowTree;
import org.planck.app.routing.algo.FatTreeFabric;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;

import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

/**
 * The flow ids {@link ShadowFlowRules} gives its rules must be the ones ONOS's
 * {@code DefaultFlowRule.Builder.fromApp} computes for the same rule: ONOS keys its flow store by
 * them and sends them to the switch as the cookie, so a rule installed by an earlier version (or
 * another node) must be found again.
 */
public class OnosFlowIdsTest {
    private static final ApplicationId APP = new DefaultApplicationId(23, "org.planck.app");
    private static final DeviceId SWITCH = DeviceId.deviceId("of:00000000000000a1");
    private final Locale formatLocale = Locale.getDefault(Locale.Category.FORMAT);
    private final RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4)
            .plan(FatTreeFabric.of(4).graph());

    @After
    public void restoreLocale() {
        Locale.setDefault(Locale.Category.FORMAT, formatLocale);
    }

    /** The rule as ONOS builds it from the application id. */
    private static FlowRule onos(FlowRule r) {
        return DefaultFlowRule.builder().forDevice(r.deviceId()).withSelector(r.selector())
                .withTreatment(r.treatment()).withPriority(r.priority()).fromApp(APP).makePermanent().build();
    }

    private static void assertSameAsOnos(FlowRule r) {
        FlowRule o = onos(r);
        assertEquals(r.toString(), o.id(), r.id());
        assertEquals(APP.id(), r.appId());
        assertTrue(r.toString(), o.exactMatch(r));
    }

    @Test
    public void everyPlannedRuleHasOnosId() {
        MirrorSession mirror = new MirrorSession(SWITCH, PortNumber.portNumber(9), VlanId.vlanId((short) 301),
                MirrorMode.FLOW_OUTPUT, List.of(), MirrorSession.State.ACTIVE, "");
        Set<Long> ids = new HashSet<>();
        for (PlannedRule p : plan.rules()) {
            FlowRule r = ShadowFlowRules.flowRule(p, APP, null);
            assertSameAsOnos(r);
            assertSameAsOnos(ShadowFlowRules.flowRule(p, APP, mirror));
            ids.add(r.id().value());
        }
        // The hash covers device and match: distinct rules, distinct ids.
        assertEquals(plan.rules().size(), ids.size());
    }

    @Test
    public void perFlowRulesOfManyFlowsHaveOnosIds() {
        Random rnd = new Random(12);
        List<FabricHost> hosts = new ArrayList<>(plan.graph().hosts());
        int[] protos = {6, 17, 1, 47};
        for (int i = 0; i < 2000; i++) {
            FabricHost d = hosts.get(rnd.nextInt(hosts.size()));
            ShadowTree t = plan.trees(d.mac()).get(rnd.nextInt(plan.trees(d.mac()).size()));
            DeviceId edge = t.sources().iterator().next();
            IpAddress src;
            IpAddress dst;
            if (i % 4 == 3) {
                byte[] a = new byte[16];
                byte[] b = new byte[16];
                rnd.nextBytes(a);
                rnd.nextBytes(b);
                src = IpAddress.valueOf(IpAddress.Version.INET6, a);
                dst = IpAddress.valueOf(IpAddress.Version.INET6, b);
            } else {
                // Every octet value, including 0 and 255.
                src = IpAddress.valueOf(rnd.nextInt());
                dst = IpAddress.valueOf(rnd.nextInt());
            }
            FlowKey f = FlowKey.of(src, dst, protos[rnd.nextInt(protos.length)], rnd.nextInt(65536),
                                   rnd.nextInt(65536));
            PlannedRule p = PlannedRule.ingressFlow(edge, f, d.mac(), t.id(), t.shadowMac(),
                                                    t.outPort(edge).orElse(PortNumber.portNumber(1)));
            assertSameAsOnos(ShadowFlowRules.flowRule(p, APP, null));
        }
    }

    @Test
    public void maskedMacsAndShortPrefixesHaveOnosIds() {
        Random rnd = new Random(5);
        for (int i = 0; i < 500; i++) {
            TrafficSelector s = DefaultTrafficSelector.builder()
                    .matchEthDstMasked(MacAddress.valueOf(rnd.nextLong() & 0xffffffffffffL),
                                       MacAddress.valueOf(rnd.nextLong() & 0xffffffffffffL))
                    .matchEthSrc(MacAddress.valueOf(rnd.nextLong() & 0xffffffffffffL))
                    .matchEthType((short) 0x0800)
                    .matchIPSrc(IpPrefix.valueOf(IpAddress.valueOf(rnd.nextInt()), rnd.nextInt(33)))
                    .matchIPDst(IpPrefix.valueOf(IpAddress.valueOf(rnd.nextInt()), rnd.nextInt(33)))
                    .build();
            int priority = rnd.nextInt(65536);
            FlowRule r = DefaultFlowRule.builder().forDevice(SWITCH).withSelector(s)
                    .withTreatment(DefaultTrafficTreatment.emptyTreatment()).withPriority(priority)
                    .withCookie(OnosFlowIds.flowId(APP, SWITCH, s, priority, FlowRule.DEFAULT_TABLE))
                    .makePermanent().build();
            assertSameAsOnos(r);
        }
    }

    @Test
    public void localeWithOtherDigitsStillGivesOnosIds() {
        Locale thai = Locale.forLanguageTag("th-TH-u-nu-thai");
        assumeTrue(DecimalFormatSymbols.getInstance(thai).getZeroDigit() != '0');
        Locale.setDefault(Locale.Category.FORMAT, thai);
        // ONOS's rendering of an address now has Thai digits: the id differs from the ASCII one.
        assertNotEquals("10.0.0.1", IpAddress.valueOf("10.0.0.1").toString());
        FabricHost s = plan.graph().hosts().iterator().next();
        FabricHost d = plan.graph().hosts().stream().filter(h -> !h.edge().equals(s.edge())).findFirst()
                .orElseThrow();
        FlowKey f = FlowKey.of(s.ips().iterator().next(), d.ips().iterator().next(), 6, 40000, 5201);
        FlowRule thaiRule = ShadowFlowRules.flowRule(plan.flowRule(f, s.mac(), d.mac(), 1), APP, null);
        assertSameAsOnos(thaiRule);
        Locale.setDefault(Locale.Category.FORMAT, Locale.US);
        FlowRule usRule = ShadowFlowRules.flowRule(plan.flowRule(f, s.mac(), d.mac(), 1), APP, null);
        assertSameAsOnos(usRule);
        assertNotEquals(usRule.id(), thaiRule.id());
    }
}

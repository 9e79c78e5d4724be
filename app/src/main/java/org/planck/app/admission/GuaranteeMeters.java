package org.planck.app.admission;

import org.onosproject.core.ApplicationId;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.meter.Band;
import org.onosproject.net.meter.DefaultBand;
import org.onosproject.net.meter.DefaultMeterRequest;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterId;
import org.onosproject.net.meter.MeterRequest;
import org.onosproject.net.meter.MeterService;
import org.planck.api.admission.Guarantee;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.ShadowPath;
import org.planck.app.routing.ShadowFlowRules;
import org.slf4j.Logger;

import java.util.List;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Polices a guarantee's token bucket at its ingress switch: an OpenFlow meter (drop band) and a
 * copy of the routing's ingress rule for the flow one priority higher that also applies the
 * meter. Meter rate and burst are rounded down to whole kbit so the meter is never looser than
 * the bucket the bound was computed for.
 *
 * <p>Fallback when the switch has no meters (the meter service refuses or returns nothing):
 * the guarantee is marked {@link Guarantee.Policing#SENDER_SHAPED}; its bound then holds only
 * while the sender shapes itself to the bucket, which the operator must ensure.</p>
 */
final class GuaranteeMeters {
    private final Logger log = getLogger(getClass());
    private final MeterService meterService;
    private final FlowRuleService flowRuleService;
    private final ApplicationId appId;

    GuaranteeMeters(MeterService meterService, FlowRuleService flowRuleService, ApplicationId appId) {
        this.meterService = meterService;
        this.flowRuleService = flowRuleService;
        this.appId = appId;
    }

    /**
     * Meters a guarantee on its path's ingress switch.
     *
     * @param g    the admitted guarantee
     * @param path its shadow path
     * @return the guarantee with its policing set
     */
    Guarantee police(Guarantee g, ShadowPath path) {
        MeterRequest.Builder b = request(g, path);
        if (b == null) {
            log.warn("{}: bucket below 1 kbit/s or 1 kbit, cannot be metered; sender must shape", g.id());
            return g.withPolicing(Guarantee.Policing.SENDER_SHAPED, null);
        }
        Meter meter;
        try {
            meter = meterService.submit(b.add());
        } catch (RuntimeException e) {
            log.warn("{}: no meter on {} ({}); sender must shape", g.id(), path.source(), e.getMessage());
            meter = null;
        }
        if (meter == null) {
            return g.withPolicing(Guarantee.Policing.SENDER_SHAPED, null);
        }
        flowRuleService.applyFlowRules(meteredIngress(g, path, meter.id()));
        return g.withPolicing(Guarantee.Policing.METER, meter.id());
    }

    /** The meter of a guarantee (rounded down to whole kbit), or null if it rounds to nothing. */
    private MeterRequest.Builder request(Guarantee g, ShadowPath path) {
        long kbps = g.request().rateBytesPerSec() * 8 / 1000;
        long burstKbit = g.request().burstBytes() * 8 / 1000;
        if (kbps == 0 || burstKbit == 0) {
            return null;
        }
        return DefaultMeterRequest.builder().forDevice(path.source()).fromApp(appId)
                .withUnit(Meter.Unit.KB_PER_SEC).burst()
                .withBands(List.of(DefaultBand.builder().ofType(Band.Type.DROP).withRate(kbps)
                        .burstSize(burstKbit).build()));
    }

    /** The routing's ingress rule for the flow (or host pair), metered, one priority above it. */
    private FlowRule meteredIngress(Guarantee g, ShadowPath path, MeterId meter) {
        PlannedRule planned = g.request().flow().isPresent()
                ? PlannedRule.ingressFlow(path.source(), g.request().flow().get(), g.dst(), path.id(),
                        path.shadowMac(), path.hops().get(0).outPort())
                : PlannedRule.ingressHostPair(path.source(), g.src(), g.dst(), path.id(), path.shadowMac(),
                        path.hops().get(0).outPort());
        FlowRule base = ShadowFlowRules.flowRule(planned, appId, null);
        return DefaultFlowRule.builder().forDevice(base.deviceId()).withSelector(base.selector())
                .withTreatment(DefaultTrafficTreatment.builder(base.treatment()).meter(meter).build())
                .withPriority(base.priority() + 1).fromApp(appId).makePermanent().build();
    }

    /**
     * Removes a guarantee's metered rule and meter. Both are rebuilt from the guarantee, so any
     * node can remove what another node installed.
     *
     * @param g    the guarantee
     * @param path its shadow path in the plan in force
     */
    void release(Guarantee g, ShadowPath path) {
        if (g.policing() != Guarantee.Policing.METER || g.meterId().isEmpty()) {
            return;
        }
        MeterId id = g.meterId().get();
        flowRuleService.removeFlowRules(meteredIngress(g, path, id));
        MeterRequest.Builder b = request(g, path);
        if (b != null) {
            meterService.withdraw(b.remove(), id);
        }
    }
}

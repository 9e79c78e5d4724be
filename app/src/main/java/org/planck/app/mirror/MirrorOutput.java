package org.planck.app.mirror;

import org.onlab.packet.EthType;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.TrafficTreatment;
import org.planck.api.MirrorMode;
import org.planck.api.MirrorSession;

/**
 * Mirroring for OpenFlow-only switches: a copy of each frame Planck forwards is also sent
 * out of the mirror port, tagged with the switch's RSPAN VLAN, after every rewrite so the
 * copy shows the frame exactly as it left.
 */
public final class MirrorOutput {

    private MirrorOutput() {
    }

    /**
     * Adds the mirror output to a rule's treatment if the switch mirrors by flow output.
     *
     * @param treatment the rule's treatment (ends with its output)
     * @param session   the switch's mirror session, or null if it has none
     * @return the treatment to install
     */
    public static TrafficTreatment decorate(TrafficTreatment treatment, MirrorSession session) {
        if (session == null || session.mode() != MirrorMode.FLOW_OUTPUT
                || session.state() != MirrorSession.State.ACTIVE) {
            return treatment;
        }
        return DefaultTrafficTreatment.builder(treatment)
                .pushVlan(EthType.EtherType.VLAN.ethType())
                .setVlanId(session.rspanVlan())
                .setOutput(session.mirrorPort())
                .build();
    }
}

package org.planck.lab.openflow;

import org.onosproject.net.DeviceId;
import org.planck.api.fabric.PlannedRule;

import java.util.Optional;

/**
 * A switch's OFPT_ERROR answering one of the lab's messages: the rule whose flow-mod it answers
 * (found by xid), and the error type and code as the switch sent them.
 */
public final class RuleRejection {
    private final DeviceId device;
    private final PlannedRule rule;
    private final long xid;
    private final String errorType;
    private final String code;

    RuleRejection(DeviceId device, PlannedRule rule, long xid, String errorType, String code) {
        this.device = device;
        this.rule = rule;
        this.xid = xid;
        this.errorType = errorType;
        this.code = code;
    }

    public DeviceId device() {
        return device;
    }

    /**
     * The rule whose flow-mod the switch refused.
     *
     * @return rule, or empty if the error answers no flow-mod of the lab (then {@link #xid()} says which message)
     */
    public Optional<PlannedRule> rule() {
        return Optional.ofNullable(rule);
    }

    public long xid() {
        return xid;
    }

    /**
     * OpenFlow error type, e.g. {@code FLOW_MOD_FAILED}, {@code BAD_ACTION}.
     *
     * @return type name
     */
    public String errorType() {
        return errorType;
    }

    /**
     * OpenFlow error code within its type, e.g. {@code BAD_OUT_PORT}.
     *
     * @return code name
     */
    public String code() {
        return code;
    }

    @Override
    public String toString() {
        return "refused by " + device + " (xid " + xid + "): " + errorType + "/" + code
                + (rule == null ? "" : " for " + rule);
    }
}

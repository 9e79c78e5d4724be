package org.planck.lab.openflow;

import org.onosproject.net.DeviceId;

/** What the southbound tells its owner; called on netty's event-loop threads, so keep it short. */
public interface SwitchListener {
    /**
     * A switch finished the handshake.
     *
     * @param device its device id ({@code of:} + datapath id)
     */
    default void connected(DeviceId device) {
    }

    /**
     * A switch's connection closed (switch restart, echo timeout, protocol error).
     *
     * @param device the switch
     * @param reason why
     */
    default void disconnected(DeviceId device, String reason) {
    }

    /**
     * A (re)connected switch was wiped and given all its rules again, closed by a barrier.
     *
     * @param result the batch
     */
    default void programmed(InstallResult result) {
    }

    /**
     * A switch refused a flow-mod (or another message).
     *
     * @param rejection the error with its rule
     */
    default void rejected(RuleRejection rejection) {
    }
}

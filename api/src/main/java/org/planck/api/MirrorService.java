package org.planck.api;

import org.onosproject.event.ListenerService;
import org.onosproject.net.DeviceId;

import java.util.Collection;
import java.util.Optional;

/**
 * Mirror sessions: which switches copy their traffic into their mirror port, and how.
 */
public interface MirrorService extends ListenerService<MirrorEvent, MirrorListener> {

    /**
     * All mirror sessions of the configured switches.
     *
     * @return sessions, one per configured switch
     */
    Collection<MirrorSession> sessions();

    /**
     * The mirror session of a switch.
     *
     * @param deviceId switch
     * @return the session if the switch has a configured mirror port
     */
    Optional<MirrorSession> session(DeviceId deviceId);
}

package org.planck.api;

import com.google.common.collect.ImmutableSet;
import org.onosproject.event.AbstractEvent;
import org.onosproject.net.DeviceId;

import java.util.Set;

/**
 * The shadow routes changed on some switches.
 */
public class ShadowRouteEvent extends AbstractEvent<ShadowRouteEvent.Type, Set<DeviceId>> {

    /** Kinds of change. */
    public enum Type {
        /** Routes were (re)computed; the subject is the set of switches whose rules changed. */
        ROUTES_UPDATED,
        /** All routes were withdrawn (configuration removed or application stopped). */
        ROUTES_REMOVED
    }

    /**
     * Creates an event.
     *
     * @param type     kind of change
     * @param switches switches whose rules changed
     */
    public ShadowRouteEvent(Type type, Set<DeviceId> switches) {
        super(type, ImmutableSet.copyOf(switches));
    }
}

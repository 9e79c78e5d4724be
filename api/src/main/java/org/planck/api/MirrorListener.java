package org.planck.api;

import org.onosproject.event.EventListener;

/**
 * Receives mirror session changes.
 */
public interface MirrorListener extends EventListener<MirrorEvent> {
}

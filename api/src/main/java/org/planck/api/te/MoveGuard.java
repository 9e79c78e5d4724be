package org.planck.api.te;

import org.onlab.packet.MacAddress;
import org.planck.api.FlowKey;

import java.util.Optional;

/**
 * Consulted by traffic engineering before it moves a flow: admission control uses it to keep
 * admitted flows where they are and to keep other flows off switches where they would push an
 * admitted flow past its deadline.
 */
@FunctionalInterface
public interface MoveGuard {
    /** Allows every move. */
    MoveGuard ALLOW_ALL = (flow, src, dst, fromIndex, toIndex, rate) -> Optional.empty();

    /**
     * Whether a move may happen.
     *
     * @param flow            the flow
     * @param src             source host MAC
     * @param dst             destination host MAC
     * @param fromIndex       its shadow path index now
     * @param toIndex         the index it would move to
     * @param rateBytesPerSec its rate as TE sees it
     * @return empty to allow, else why not
     */
    Optional<String> veto(FlowKey flow, MacAddress src, MacAddress dst, int fromIndex, int toIndex,
                          double rateBytesPerSec);
}

package org.planck.api.fabric;

import org.onlab.packet.MacAddress;

import java.util.Optional;

/**
 * Allocates one shadow MAC per (destination host, path index) from {@link ShadowMacSpace}.
 * Implementations must never hand the same MAC to two ids while both are allocated; the
 * cluster-wide implementation keeps this across controller instances.
 */
public interface ShadowMacAllocator {

    /**
     * The shadow MAC of (host, index), allocating one if the id has none. Idempotent: an id
     * that already holds a MAC gets the same MAC again.
     *
     * @param host  real MAC of the destination host
     * @param index path index, non-negative
     * @return a locally administered unicast MAC in {@link ShadowMacSpace}
     * @throws ShadowMacPoolExhaustedException if no MAC is free
     */
    MacAddress allocate(MacAddress host, int index);

    /**
     * Releases every shadow MAC held by a host's paths (host gone). Unknown hosts are ignored.
     *
     * @param host real MAC of the destination host
     */
    void release(MacAddress host);

    /**
     * The MAC held by (host, index), without allocating.
     *
     * @param host  real MAC of the destination host
     * @param index path index
     * @return the MAC, or empty
     */
    Optional<MacAddress> lookup(MacAddress host, int index);

    /**
     * The (host, index) holding a shadow MAC.
     *
     * @param shadowMac a MAC
     * @return the owner, or empty if the MAC is not allocated
     */
    Optional<ShadowPathId> owner(MacAddress shadowMac);
}

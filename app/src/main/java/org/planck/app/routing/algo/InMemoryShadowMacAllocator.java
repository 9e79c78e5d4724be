package org.planck.app.routing.algo;

import org.onlab.packet.MacAddress;
import org.planck.api.fabric.ShadowMacAllocator;
import org.planck.api.fabric.ShadowMacPoolExhaustedException;
import org.planck.api.fabric.ShadowMacSpace;
import org.planck.api.fabric.ShadowPathId;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A single-process shadow MAC allocator: ordinals are handed out in increasing order and
 * released ordinals are reused (oldest release first). Not thread-safe; the lab and tests use it,
 * a controller cluster uses a shared-store implementation.
 */
public final class InMemoryShadowMacAllocator implements ShadowMacAllocator {
    private final long capacity;
    private final Map<MacAddress, TreeMap<Integer, MacAddress>> byHost = new HashMap<>();
    private final Map<MacAddress, ShadowPathId> owners = new HashMap<>();
    private final Deque<Long> freed = new ArrayDeque<>();
    private long next;

    /**
     * An allocator over the whole shadow MAC space.
     */
    public InMemoryShadowMacAllocator() {
        this(ShadowMacSpace.SIZE);
    }

    /**
     * An allocator over the first {@code capacity} ordinals of the shadow MAC space.
     *
     * @param capacity number of MACs, 1 to {@link ShadowMacSpace#SIZE}
     */
    public InMemoryShadowMacAllocator(long capacity) {
        checkArgument(capacity > 0 && capacity <= ShadowMacSpace.SIZE, "capacity out of range: %s", capacity);
        this.capacity = capacity;
    }

    @Override
    public MacAddress allocate(MacAddress host, int index) {
        checkNotNull(host, "host");
        checkArgument(index >= 0, "path index must be non-negative: %s", index);
        TreeMap<Integer, MacAddress> held = byHost.computeIfAbsent(host, h -> new TreeMap<>());
        MacAddress mac = held.get(index);
        if (mac != null) {
            return mac;
        }
        long ordinal;
        if (!freed.isEmpty()) {
            ordinal = freed.poll();
        } else if (next < capacity) {
            ordinal = next++;
        } else {
            if (held.isEmpty()) {
                byHost.remove(host);
            }
            throw new ShadowMacPoolExhaustedException("no free shadow MAC for " + ShadowPathId.of(host, index)
                    + ": all " + capacity + " are allocated");
        }
        mac = ShadowMacSpace.mac(ordinal);
        held.put(index, mac);
        owners.put(mac, ShadowPathId.of(host, index));
        return mac;
    }

    @Override
    public void release(MacAddress host) {
        TreeMap<Integer, MacAddress> held = byHost.remove(host);
        if (held == null) {
            return;
        }
        for (MacAddress mac : held.values()) {
            owners.remove(mac);
            freed.add(ShadowMacSpace.ordinal(mac));
        }
    }

    @Override
    public Optional<MacAddress> lookup(MacAddress host, int index) {
        TreeMap<Integer, MacAddress> held = byHost.get(host);
        return held == null ? Optional.empty() : Optional.ofNullable(held.get(index));
    }

    @Override
    public Optional<ShadowPathId> owner(MacAddress shadowMac) {
        return Optional.ofNullable(owners.get(shadowMac));
    }

    /**
     * Number of MACs currently allocated.
     *
     * @return count
     */
    public int allocatedCount() {
        return owners.size();
    }
}

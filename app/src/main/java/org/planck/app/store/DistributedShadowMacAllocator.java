package org.planck.app.store;

import org.onlab.packet.MacAddress;
import org.onosproject.store.service.AtomicCounter;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;
import org.planck.api.fabric.ShadowMacAllocator;
import org.planck.api.fabric.ShadowMacPoolExhaustedException;
import org.planck.api.fabric.ShadowMacSpace;
import org.planck.api.fabric.ShadowPathId;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Shadow MAC allocation shared by every member of an ONOS cluster. Two consistent maps hold
 * the allocation in both directions; a MAC becomes someone's only by winning
 * {@code putIfAbsent} on the MAC-to-owner map, so two members can never hand out the same MAC,
 * and a (host, index) keeps its MAC whichever member asks.
 */
public final class DistributedShadowMacAllocator implements ShadowMacAllocator {

    static final String MACS_BY_PATH = "planck-shadow-macs";
    static final String OWNERS_BY_MAC = "planck-shadow-mac-owners";
    static final String NEXT_ORDINAL = "planck-shadow-mac-next";

    private final ConsistentMap<ShadowPathId, MacAddress> macsByPath;
    private final ConsistentMap<MacAddress, ShadowPathId> ownersByMac;
    private final AtomicCounter nextOrdinal;
    private final long capacity;

    /**
     * An allocator over shared state.
     *
     * @param macsByPath  (host, index) to MAC
     * @param ownersByMac MAC to (host, index)
     * @param nextOrdinal next never-used ordinal
     * @param capacity    number of usable ordinals, 1 to {@link ShadowMacSpace#SIZE}
     */
    public DistributedShadowMacAllocator(ConsistentMap<ShadowPathId, MacAddress> macsByPath,
                                         ConsistentMap<MacAddress, ShadowPathId> ownersByMac,
                                         AtomicCounter nextOrdinal, long capacity) {
        checkArgument(capacity > 0 && capacity <= ShadowMacSpace.SIZE, "capacity out of range: %s", capacity);
        this.macsByPath = macsByPath;
        this.ownersByMac = ownersByMac;
        this.nextOrdinal = nextOrdinal;
        this.capacity = capacity;
    }

    /**
     * The cluster-wide allocator over the whole shadow MAC space.
     *
     * @param storage ONOS storage service
     * @return allocator
     */
    public static DistributedShadowMacAllocator create(StorageService storage) {
        return new DistributedShadowMacAllocator(
                storage.<ShadowPathId, MacAddress>consistentMapBuilder().withName(MACS_BY_PATH)
                        .withSerializer(PlanckSerializers.SERIALIZER).build(),
                storage.<MacAddress, ShadowPathId>consistentMapBuilder().withName(OWNERS_BY_MAC)
                        .withSerializer(PlanckSerializers.SERIALIZER).build(),
                storage.atomicCounterBuilder().withName(NEXT_ORDINAL).build().asAtomicCounter(),
                ShadowMacSpace.SIZE);
    }

    @Override
    public MacAddress allocate(MacAddress host, int index) {
        ShadowPathId id = ShadowPathId.of(host, index);
        MacAddress held = Versioned.valueOrNull(macsByPath.get(id));
        if (held != null) {
            return held;
        }
        while (true) {
            MacAddress candidate = ShadowMacSpace.mac(freeOrdinal());
            if (ownersByMac.putIfAbsent(candidate, id) != null) {
                continue; // someone else took it between our look and our claim
            }
            Versioned<MacAddress> raced = macsByPath.putIfAbsent(id, candidate);
            if (raced != null) {
                // Another member allocated this id concurrently: keep theirs, give ours back.
                ownersByMac.remove(candidate, id);
                return raced.value();
            }
            return candidate;
        }
    }

    private long freeOrdinal() {
        long n = nextOrdinal.getAndIncrement();
        if (n < capacity) {
            return n;
        }
        // The never-used range is spent: reuse a released ordinal (rare; the space has 2^32 MACs).
        for (long o = 0; o < capacity; o++) {
            if (!ownersByMac.containsKey(ShadowMacSpace.mac(o))) {
                return o;
            }
        }
        throw new ShadowMacPoolExhaustedException("all " + capacity + " shadow MACs are allocated");
    }

    @Override
    public void release(MacAddress host) {
        List<ShadowPathId> ids = new ArrayList<>();
        for (ShadowPathId id : macsByPath.keySet()) {
            if (id.destination().equals(host)) {
                ids.add(id);
            }
        }
        for (ShadowPathId id : ids) {
            Versioned<MacAddress> mac = macsByPath.remove(id);
            if (mac != null) {
                ownersByMac.remove(mac.value(), id);
            }
        }
    }

    @Override
    public Optional<MacAddress> lookup(MacAddress host, int index) {
        return Optional.ofNullable(Versioned.valueOrNull(macsByPath.get(ShadowPathId.of(host, index))));
    }

    @Override
    public Optional<ShadowPathId> owner(MacAddress shadowMac) {
        return Optional.ofNullable(Versioned.valueOrNull(ownersByMac.get(shadowMac)));
    }

    /**
     * Every allocation.
     *
     * @return (host, index) to MAC
     */
    public Map<ShadowPathId, MacAddress> allocations() {
        return Map.copyOf(macsByPath.asJavaMap());
    }
}

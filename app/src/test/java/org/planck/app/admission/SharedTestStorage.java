package org.planck.app.admission;

import org.onosproject.store.service.AsyncAtomicValue;
import org.onosproject.store.service.AtomicIdGeneratorBuilder;
import org.onosproject.store.service.AtomicValueBuilder;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.ConsistentMapBuilder;
import org.onosproject.store.service.TestAtomicIdGenerator;
import org.onosproject.store.service.TestAtomicValue;
import org.onosproject.store.service.TestConsistentMap;
import org.onosproject.store.service.TestStorageService;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The SDK's test storage, except that primitives with the same name are one object: several
 * components (standing for cluster nodes) built on it share state as they would in a cluster.
 */
class SharedTestStorage extends TestStorageService {
    private final Map<String, Object> primitives = new ConcurrentHashMap<>();

    @Override
    @SuppressWarnings("unchecked")
    public <K, V> ConsistentMapBuilder<K, V> consistentMapBuilder() {
        return new TestConsistentMap.Builder<K, V>() {
            @Override
            public ConsistentMap<K, V> build() {
                return (ConsistentMap<K, V>) primitives.computeIfAbsent("map/" + name(), n -> super.build());
            }
        };
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public <V> AtomicValueBuilder<V> atomicValueBuilder() {
        return new TestAtomicValue.Builder() {
            @Override
            public AsyncAtomicValue build() {
                return (AsyncAtomicValue) primitives.computeIfAbsent("value/" + name(), n -> super.build());
            }
        };
    }

    @Override
    public AtomicIdGeneratorBuilder atomicIdGeneratorBuilder() {
        return new TestAtomicIdGenerator.Builder() {
            @Override
            public TestAtomicIdGenerator build() {
                return (TestAtomicIdGenerator) primitives.computeIfAbsent("ids/" + name(), n -> super.build());
            }
        };
    }
}

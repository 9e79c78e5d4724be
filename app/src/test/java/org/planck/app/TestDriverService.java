package org.planck.app;

import org.onosproject.net.DeviceId;
import org.onosproject.net.behaviour.BridgeName;
import org.onosproject.net.behaviour.MirroringConfig;
import org.onosproject.net.behaviour.MirroringDescription;
import org.onosproject.net.behaviour.MirroringName;
import org.onosproject.net.behaviour.MirroringStatistics;
import org.onosproject.net.driver.AbstractHandlerBehaviour;
import org.onosproject.net.driver.Behaviour;
import org.onosproject.net.driver.Driver;
import org.onosproject.net.driver.DriverAdapter;
import org.onosproject.net.driver.DriverData;
import org.onosproject.net.driver.DriverHandler;
import org.onosproject.net.driver.DriverServiceAdapter;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Drivers for tests: devices registered with {@link #withMirroring(DeviceId)} have the
 * MirroringConfig behaviour (as OVSDB-managed OVS does) and record what they are asked;
 * every other device has a plain OpenFlow driver without it.
 */
public class TestDriverService extends DriverServiceAdapter {
    private final Map<DeviceId, RecordingMirroring> mirroring = new ConcurrentHashMap<>();

    /** A switch's mirror table as the OVSDB driver would keep it. */
    public static final class RecordingMirroring extends AbstractHandlerBehaviour implements MirroringConfig {
        public final Map<String, MirroringDescription> mirrors = new ConcurrentHashMap<>();
        public final Map<String, String> bridges = new ConcurrentHashMap<>();
        public volatile boolean refuse;
        public final AtomicInteger deletes = new AtomicInteger();

        @Override
        public boolean addMirroring(BridgeName bridge, MirroringDescription description) {
            if (refuse) {
                return false;
            }
            mirrors.put(description.name().name(), description);
            bridges.put(description.name().name(), bridge.name());
            return true;
        }

        @Override
        public void deleteMirroring(MirroringName name) {
            deletes.incrementAndGet();
            mirrors.remove(name.name());
            bridges.remove(name.name());
        }

        @Override
        public Collection<MirroringStatistics> getMirroringStatistics() {
            return List.of();
        }
    }

    /**
     * Gives a device the MirroringConfig behaviour.
     *
     * @param id device
     * @return its recorded mirror table
     */
    public RecordingMirroring withMirroring(DeviceId id) {
        return mirroring.computeIfAbsent(id, k -> new RecordingMirroring());
    }

    @Override
    public Driver getDriver(DeviceId deviceId) {
        boolean mirrors = mirroring.containsKey(deviceId);
        return new DriverAdapter() {
            @Override
            public String name() {
                return mirrors ? "ovs" : "default";
            }

            @Override
            public boolean hasBehaviour(Class<? extends Behaviour> behaviourClass) {
                return mirrors && behaviourClass == MirroringConfig.class;
            }
        };
    }

    @Override
    public DriverHandler createHandler(DeviceId deviceId, String... credentials) {
        Driver driver = getDriver(deviceId);
        return new DriverHandler() {
            @Override
            public Driver driver() {
                return driver;
            }

            @Override
            public DriverData data() {
                return null;
            }

            @Override
            @SuppressWarnings("unchecked")
            public <T extends Behaviour> T behaviour(Class<T> behaviourClass) {
                RecordingMirroring m = mirroring.get(deviceId);
                if (behaviourClass != MirroringConfig.class || m == null) {
                    throw new IllegalArgumentException(deviceId + " has no " + behaviourClass.getSimpleName());
                }
                return (T) m;
            }

            @Override
            public <T> T get(Class<T> serviceClass) {
                return null;
            }
        };
    }
}

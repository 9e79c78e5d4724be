package org.planck.app;

import com.google.common.collect.ImmutableList;
import org.onlab.packet.ChassisId;
import org.onosproject.net.DefaultAnnotations;
import org.onosproject.net.DefaultDevice;
import org.onosproject.net.DefaultPort;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.provider.ProviderId;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Device inventory for component tests: switches with ports, availability, and events
 * delivered synchronously to listeners.
 */
public class TestDeviceService extends DeviceServiceAdapter {
    private static final ProviderId PID = new ProviderId("of", "org.planck.test");

    private final Map<DeviceId, Device> devices = new ConcurrentHashMap<>();
    private final Map<DeviceId, Map<Long, Port>> ports = new ConcurrentHashMap<>();
    private final Set<DeviceId> unavailable = ConcurrentHashMap.newKeySet();
    private final List<DeviceListener> listeners = new CopyOnWriteArrayList<>();

    /**
     * Adds a switch with ports 1..portCount at the given speed, plus the LOCAL port named after
     * the bridge.
     *
     * @param id        device id
     * @param portCount number of physical ports
     * @param speedMbps port speed
     * @return the device
     */
    public Device addSwitch(DeviceId id, int portCount, long speedMbps) {
        Device d = new DefaultDevice(PID, id, Device.Type.SWITCH, "Nicira, Inc.", "Open vSwitch", "2.17",
                "1", new ChassisId(id.hashCode() & 0xffff));
        devices.put(id, d);
        Map<Long, Port> map = new ConcurrentSkipListMap<>();
        for (long p = 1; p <= portCount; p++) {
            map.put(p, port(d, PortNumber.portNumber(p), speedMbps, "p" + p));
        }
        map.put(PortNumber.LOCAL.toLong(), port(d, PortNumber.LOCAL, 0, "br-" + id.toString().substring(3)));
        ports.put(id, map);
        fire(new DeviceEvent(DeviceEvent.Type.DEVICE_ADDED, d));
        return d;
    }

    private static Port port(Device d, PortNumber n, long speed, String name) {
        return new DefaultPort(d, n, true, Port.Type.COPPER, speed,
                DefaultAnnotations.builder().set("portName", name).build());
    }

    /**
     * Adds a port to a switch.
     *
     * @param id     device
     * @param number port number
     * @param speed  Mbps
     */
    public void addPort(DeviceId id, long number, long speed) {
        Device d = devices.get(id);
        Port p = port(d, PortNumber.portNumber(number), speed, "p" + number);
        ports.get(id).put(number, p);
        fire(new DeviceEvent(DeviceEvent.Type.PORT_ADDED, d, p));
    }

    /**
     * Marks a switch (un)available and announces it.
     *
     * @param id        device
     * @param available availability
     */
    public void setAvailable(DeviceId id, boolean available) {
        if (available) {
            unavailable.remove(id);
        } else {
            unavailable.add(id);
        }
        fire(new DeviceEvent(DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED, devices.get(id)));
    }

    public void fire(DeviceEvent event) {
        for (DeviceListener l : listeners) {
            if (l.isRelevant(event)) {
                l.event(event);
            }
        }
    }

    @Override
    public int getDeviceCount() {
        return devices.size();
    }

    @Override
    public Iterable<Device> getDevices() {
        return ImmutableList.copyOf(devices.values());
    }

    @Override
    public Iterable<Device> getAvailableDevices() {
        List<Device> l = new ArrayList<>();
        devices.values().stream().filter(d -> isAvailable(d.id())).forEach(l::add);
        return l;
    }

    @Override
    public Device getDevice(DeviceId deviceId) {
        return devices.get(deviceId);
    }

    @Override
    public List<Port> getPorts(DeviceId deviceId) {
        Map<Long, Port> m = ports.get(deviceId);
        return m == null ? List.of() : ImmutableList.copyOf(m.values());
    }

    @Override
    public Port getPort(DeviceId deviceId, PortNumber portNumber) {
        Map<Long, Port> m = ports.get(deviceId);
        return m == null ? null : m.get(portNumber.toLong());
    }

    @Override
    public boolean isAvailable(DeviceId deviceId) {
        return devices.containsKey(deviceId) && !unavailable.contains(deviceId);
    }

    @Override
    public void addListener(DeviceListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(DeviceListener listener) {
        listeners.remove(listener);
    }
}

package org.planck.app.telemetry;

import com.google.common.collect.ImmutableList;
import org.onlab.packet.ChassisId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DefaultDevice;
import org.onosproject.net.DefaultPort;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.device.PortStatistics;
import org.onosproject.net.provider.ProviderId;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A device service holding a few switches with ports of given speeds, and settable port delta statistics.
 */
public class TestFabric extends DeviceServiceAdapter {
    private static final ProviderId PID = new ProviderId("of", "planck.test");
    private final Map<DeviceId, Device> devices = new LinkedHashMap<>();
    private final Map<ConnectPoint, Port> ports = new HashMap<>();
    private final Map<DeviceId, List<PortStatistics>> deltas = new HashMap<>();

    /**
     * Creates a fabric of switches of:000...1..n, each with ports 1..portsPerSwitch at speedMbps.
     */
    public TestFabric(int switches, int portsPerSwitch, long speedMbps) {
        for (int s = 1; s <= switches; s++) {
            DeviceId id = deviceId(s);
            Device d = new DefaultDevice(PID, id, Device.Type.SWITCH, "planck", "hw", "sw", "sn", new ChassisId(s));
            devices.put(id, d);
            for (int p = 1; p <= portsPerSwitch; p++) {
                ports.put(new ConnectPoint(id, PortNumber.portNumber(p)),
                        new DefaultPort(d, PortNumber.portNumber(p), true, Port.Type.COPPER, speedMbps));
            }
        }
    }

    public static DeviceId deviceId(int s) {
        return DeviceId.deviceId(String.format("of:%016x", s));
    }

    public static ConnectPoint port(int s, int p) {
        return new ConnectPoint(deviceId(s), PortNumber.portNumber(p));
    }

    public void setDeltas(DeviceId device, List<PortStatistics> stats) {
        deltas.put(device, stats);
    }

    @Override
    public Device getDevice(DeviceId deviceId) {
        return devices.get(deviceId);
    }

    @Override
    public Iterable<Device> getDevices() {
        return ImmutableList.copyOf(devices.values());
    }

    @Override
    public Iterable<Device> getAvailableDevices() {
        return getDevices();
    }

    @Override
    public int getDeviceCount() {
        return devices.size();
    }

    @Override
    public Port getPort(DeviceId deviceId, PortNumber portNumber) {
        return ports.get(new ConnectPoint(deviceId, portNumber));
    }

    @Override
    public List<Port> getPorts(DeviceId deviceId) {
        List<Port> result = new ArrayList<>();
        ports.forEach((cp, p) -> {
            if (cp.deviceId().equals(deviceId)) {
                result.add(p);
            }
        });
        return result;
    }

    @Override
    public List<PortStatistics> getPortDeltaStatistics(DeviceId deviceId) {
        return deltas.getOrDefault(deviceId, ImmutableList.of());
    }
}

package org.planck.app.telemetry;

import org.onlab.osgi.ComponentContextAdapter;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.cfg.ComponentConfigAdapter;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.NetTestTools;
import org.onosproject.store.service.TestStorageService;
import org.planck.api.FlowKey;
import org.planck.api.telemetry.CongestionState;
import org.planck.api.telemetry.FlowRateEvent;
import org.planck.api.telemetry.PortCongestionNotice;
import org.planck.api.telemetry.RateEstimator;
import org.planck.app.SyncEventDelivery;
import org.planck.app.reroute.ActiveRerouteLogs;
import org.planck.app.reroute.RerouteLog;

import java.util.Dictionary;
import java.util.Hashtable;

/**
 * Builders of events and of a telemetry manager wired to SDK test adapters.
 */
public final class TelemetryFixtures {
    private TelemetryFixtures() {
    }

    /** Wires and activates a manager on the given fabric and clock; the periodic sweep is effectively off. */
    public static TelemetryStateManager manager(TestFabric fabric, ManualClock clock) {
        TelemetryStateManager m = new TelemetryStateManager();
        m.storageService = new TestStorageService();
        m.deviceService = fabric;
        m.cfgService = new ComponentConfigAdapter();
        NetTestTools.injectEventDispatcher(m, new SyncEventDelivery());
        m.clock = clock;
        Hashtable<String, Object> props = new Hashtable<>();
        // Tests call expireIdle() themselves; keep the background sweep out of their way.
        props.put(OsgiPropertyConstants.SWEEP_INTERVAL_MS, "3600000");
        m.activate(new ComponentContextAdapter() {
            @Override
            public Dictionary getProperties() {
                return props;
            }
        });
        return m;
    }

    /** Activates a reroute log with synchronous event delivery. */
    public static RerouteLog rerouteManager() {
        return ActiveRerouteLogs.activated();
    }

    /** Deactivates a manager made by {@link #manager}. */
    public static void stop(TelemetryStateManager m) {
        m.deactivate();
    }

    public static FlowKey flow(int i) {
        return FlowKey.of(IpAddress.valueOf(0x0a000000 | (i >>> 16 & 0xff) << 8 | 1),
                IpAddress.valueOf(0x0a010000 | (i & 0xffff)), 6, 10000 + (i % 50000), 5201);
    }

    public static FlowRateEvent rate(int flow, ConnectPoint port, double bytesPerSec, long lastSampleUs) {
        return new FlowRateEvent(flow(flow), port, MacAddress.valueOf(0x027000000000L | flow), bytesPerSec,
                10, lastSampleUs - 1000, lastSampleUs, RateEstimator.TCP_SEQ);
    }

    public static PortCongestionNotice notice(ConnectPoint port, CongestionState state, double utilization) {
        return new PortCongestionNotice(port, state, utilization, utilization * 1e9, 1e9, 1000, 1100);
    }
}

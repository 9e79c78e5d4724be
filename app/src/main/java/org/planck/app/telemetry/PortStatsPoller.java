package org.planck.app.telemetry;

import com.google.common.collect.ImmutableMap;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.Device;
import org.onosproject.net.Port;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.device.PortStatistics;
import org.planck.api.telemetry.PortLoad;
import org.slf4j.Logger;

import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * The Poll baseline's measurement: every N ms reads the port delta statistics the
 * DeviceService keeps and turns transmitted bytes over the delta's duration into each port's
 * egress load and utilisation. Polled loads carry no flow count (0) and no congestion verdict;
 * the consumer applies its own threshold.
 */
public final class PortStatsPoller {
    /** Default poll period of the Poll baseline, as in the Planck paper's comparison. */
    public static final long DEFAULT_PERIOD_MS = 100;

    private final Logger log = getLogger(getClass());
    private final DeviceService deviceService;
    private final long periodMs;
    private final Consumer<Map<ConnectPoint, PortLoad>> sink;
    private ScheduledFuture<?> task;

    /**
     * Creates a poller.
     *
     * @param deviceService source of port statistics
     * @param periodMs      poll period, > 0
     * @param sink          receives each poll's loads, keyed by port
     */
    public PortStatsPoller(DeviceService deviceService, long periodMs, Consumer<Map<ConnectPoint, PortLoad>> sink) {
        checkArgument(periodMs > 0, "poll period must be > 0 ms");
        this.deviceService = checkNotNull(deviceService, "deviceService");
        this.sink = checkNotNull(sink, "sink");
        this.periodMs = periodMs;
    }

    /**
     * Starts polling on the given executor.
     *
     * @param executor runs the polls
     */
    public synchronized void start(ScheduledExecutorService executor) {
        checkState(task == null, "already started");
        task = executor.scheduleAtFixedRate(this::pollAndDeliver, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Stops polling; a poll in progress completes.
     */
    public synchronized void stop() {
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }

    private void pollAndDeliver() {
        try {
            sink.accept(pollOnce());
        } catch (RuntimeException e) {
            log.warn("Port statistics poll failed", e);
        }
    }

    /**
     * Reads the current delta statistics of every available device once.
     *
     * @return egress load of every port with a delta of non-zero duration
     */
    public Map<ConnectPoint, PortLoad> pollOnce() {
        ImmutableMap.Builder<ConnectPoint, PortLoad> loads = ImmutableMap.builder();
        for (Device device : deviceService.getAvailableDevices()) {
            for (PortStatistics stats : deviceService.getPortDeltaStatistics(device.id())) {
                double seconds = stats.durationSec() + stats.durationNano() / 1e9;
                if (seconds <= 0) {
                    continue;
                }
                ConnectPoint cp = new ConnectPoint(device.id(), stats.portNumber());
                Port port = deviceService.getPort(cp);
                long capacity = port == null ? 0 : port.portSpeed() * 1_000_000L;
                long bps = Math.round(stats.bytesSent() * 8 / seconds);
                loads.put(cp, new PortLoad(cp, bps, capacity, 0, false));
            }
        }
        return loads.build();
    }
}

package org.planck.web.telemetry;

import org.onosproject.event.ListenerService;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.telemetry.CongestionState;
import org.planck.api.telemetry.FlowRateEvent;
import org.planck.api.telemetry.FlowRecord;
import org.planck.api.telemetry.FlowStateService;
import org.planck.api.telemetry.IngestCounters;
import org.planck.api.telemetry.IngestResult;
import org.planck.api.telemetry.MalformedBatchException;
import org.planck.api.telemetry.PlanckCongestionEvent;
import org.planck.api.telemetry.PlanckCongestionListener;
import org.planck.api.telemetry.PlanckMetricsService;
import org.planck.api.telemetry.PortCongestionNotice;
import org.planck.api.telemetry.PortLoad;
import org.planck.api.telemetry.PortLoadService;
import org.planck.api.telemetry.TelemetryBatch;
import org.planck.api.telemetry.TelemetryBatchCodec;
import org.planck.api.telemetry.TelemetryEvent;
import org.planck.api.telemetry.TelemetryIngestService;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * In-memory telemetry services for REST tests: the real codec, a map of flow records keyed by
 * flow and switch, and port loads summed from it. Devices in {@code knownDevices} with ports 1-8 exist.
 */
class FakeTelemetry implements TelemetryIngestService, FlowStateService, PortLoadService, PlanckMetricsService,
        ListenerService<PlanckCongestionEvent, PlanckCongestionListener> {
    final Set<DeviceId> knownDevices = new HashSet<>();
    final Map<String, FlowRecord> flows = new LinkedHashMap<>();
    final Set<ConnectPoint> congested = new HashSet<>();
    final TelemetryBatchCodec codec = new TelemetryBatchCodec();
    int rejected;

    @Override
    public IngestResult ingest(InputStream json) throws MalformedBatchException {
        TelemetryBatch batch;
        try {
            batch = codec.decode(json);
        } catch (MalformedBatchException e) {
            rejected++;
            throw e;
        }
        return ingest(batch);
    }

    @Override
    public IngestResult ingest(TelemetryBatch batch) {
        int accepted = 0;
        int noDevice = 0;
        int noPort = 0;
        for (TelemetryEvent e : batch.events()) {
            if (!knownDevices.contains(e.port().deviceId())) {
                noDevice++;
                continue;
            }
            if (e.port().port().toLong() < 1 || e.port().port().toLong() > 8) {
                noPort++;
                continue;
            }
            accepted++;
            if (e instanceof FlowRateEvent) {
                FlowRateEvent f = (FlowRateEvent) e;
                flows.put(f.flow() + "@" + f.port().deviceId(), FlowRecord.of(f, batch.collector(), 1000));
            } else {
                PortCongestionNotice n = (PortCongestionNotice) e;
                if (n.state() == CongestionState.CONGESTED) {
                    congested.add(n.port());
                } else {
                    congested.remove(n.port());
                }
            }
        }
        return new IngestResult(accepted, noDevice, noPort);
    }

    @Override
    public IngestCounters counters() {
        return new IngestCounters(0, rejected, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    @Override
    public Collection<FlowRecord> flows() {
        return new ArrayList<>(flows.values());
    }

    @Override
    public Collection<FlowRecord> flows(FlowKey flow) {
        return flows.values().stream().filter(r -> r.flow().equals(flow)).collect(Collectors.toList());
    }

    @Override
    public Collection<FlowRecord> flowsOn(ConnectPoint port) {
        return flows.values().stream().filter(r -> r.port().equals(port)).collect(Collectors.toList());
    }

    @Override
    public int flowRecordCount() {
        return flows.size();
    }

    @Override
    public PortLoad load(ConnectPoint port) {
        long bps = flowsOn(port).stream().mapToLong(FlowRecord::bitsPerSec).sum();
        return new PortLoad(port, bps, 1_000_000_000L, flowsOn(port).size(), congested.contains(port));
    }

    @Override
    public Collection<PortLoad> loads() {
        Set<ConnectPoint> ports = new HashSet<>(congested);
        flows.values().forEach(r -> ports.add(r.port()));
        List<PortLoad> loads = new ArrayList<>();
        ports.forEach(p -> loads.add(load(p)));
        return loads;
    }

    @Override
    public Set<ConnectPoint> congestedPorts() {
        return new HashSet<>(congested);
    }

    @Override
    public void setCongestionThreshold(double thresholdPercent, double hysteresisPercent) {
    }

    @Override
    public void recordDecisionLatencyMicros(long micros) {
    }

    @Override
    public String exposition() {
        return "# HELP planck_flow_records Live flow records\n# TYPE planck_flow_records gauge\n"
                + "planck_flow_records " + flows.size() + ".0\n";
    }

    @Override
    public void addListener(PlanckCongestionListener listener) {
    }

    @Override
    public void removeListener(PlanckCongestionListener listener) {
    }
}

package org.planck.api.telemetry;

import com.google.common.collect.ImmutableSet;
import org.onlab.packet.IpAddress;
import org.onosproject.net.ConnectPoint;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Selection of flow records by host and congestion, largest rate first; shared by the REST
 * and CLI flow listings so both select alike.
 */
public final class FlowFilter {
    private final Set<IpAddress> hosts;
    private final Boolean congested;

    /**
     * Creates a filter.
     *
     * @param hosts     keep flows from or to any of these addresses; null keeps all
     * @param congested true keeps flows on congested ports, false on uncongested ones, null all
     */
    public FlowFilter(Set<IpAddress> hosts, Boolean congested) {
        this.hosts = hosts == null ? null : ImmutableSet.copyOf(hosts);
        this.congested = congested;
    }

    /**
     * Selects and orders records.
     *
     * @param records        candidate records
     * @param congestedPorts ports currently congested
     * @return matching records, largest rate first
     */
    public List<FlowRecord> select(Collection<FlowRecord> records, Set<ConnectPoint> congestedPorts) {
        List<FlowRecord> selected = new ArrayList<>();
        for (FlowRecord r : records) {
            if (hosts != null && !hosts.contains(r.flow().src()) && !hosts.contains(r.flow().dst())) {
                continue;
            }
            if (congested != null && congested != congestedPorts.contains(r.port())) {
                continue;
            }
            selected.add(r);
        }
        selected.sort(Comparator.comparingDouble(FlowRecord::bytesPerSec).reversed()
                .thenComparing(r -> r.flow().toString()));
        return selected;
    }
}

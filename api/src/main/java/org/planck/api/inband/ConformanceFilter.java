package org.planck.api.inband;

import org.onlab.packet.IpAddress;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Selection of flow conformance verdicts by status and host, worst first (non-conforming, then
 * pending moves, then the rest), shared by REST and CLI so both list alike.
 */
public final class ConformanceFilter {
    private static final List<ConformanceStatus> SEVERITY = List.of(ConformanceStatus.NON_CONFORMING,
            ConformanceStatus.MOVE_PENDING, ConformanceStatus.UNTRACED, ConformanceStatus.UNPLANNED,
            ConformanceStatus.MOVED_CONFIRMED, ConformanceStatus.CONFORMING);

    private final ConformanceStatus status;
    private final IpAddress host;

    /**
     * Creates a filter.
     *
     * @param status keep only this status; null keeps all
     * @param host   keep flows from or to this address; null keeps all
     */
    public ConformanceFilter(ConformanceStatus status, IpAddress host) {
        this.status = status;
        this.host = host;
    }

    /**
     * Selects and orders verdicts.
     *
     * @param flows candidate verdicts
     * @param limit most returned, >= 0
     * @return matching verdicts, worst first, then by flow
     */
    public List<FlowConformance> select(Collection<FlowConformance> flows, int limit) {
        List<FlowConformance> out = new ArrayList<>();
        for (FlowConformance c : flows) {
            if ((status == null || c.status() == status)
                    && (host == null || host.equals(c.flow().src()) || host.equals(c.flow().dst()))) {
                out.add(c);
            }
        }
        out.sort(Comparator.<FlowConformance>comparingInt(c -> SEVERITY.indexOf(c.status()))
                .thenComparing(c -> c.flow().toString()));
        return out.subList(0, Math.min(limit, out.size()));
    }

    /**
     * Parses a status name as REST and CLI accept it (case-insensitive).
     *
     * @param text the name
     * @return the status
     * @throws IllegalArgumentException naming the accepted values
     */
    public static ConformanceStatus status(String text) {
        for (ConformanceStatus s : ConformanceStatus.values()) {
            if (s.name().equalsIgnoreCase(text)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown status \"" + text + "\" (expected one of "
                + java.util.Arrays.toString(ConformanceStatus.values()) + ")");
    }
}

package org.planck.api.inband;

import org.onosproject.event.ListenerService;
import org.planck.api.FlowKey;

import java.util.Collection;
import java.util.Optional;

/**
 * Path conformance from PINT: per flow, the path PINT traced against the path the routing plan
 * puts it on. Posts a {@link PathConformanceEvent} when a flow becomes non-conforming and when
 * a move is confirmed.
 */
public interface PathConformanceService extends ListenerService<PathConformanceEvent, PathConformanceListener> {

    /**
     * Every flow with PINT state (traced, or moved since PINT state was kept), evaluated now.
     *
     * @return verdicts, in no particular order
     */
    Collection<FlowConformance> flows();

    /**
     * One flow, evaluated now.
     *
     * @param flow the flow's 5-tuple
     * @return its verdict, if the flow has PINT state
     */
    Optional<FlowConformance> flow(FlowKey flow);

    /**
     * Counters of PINT handling.
     *
     * @return a snapshot
     */
    PintCounters counters();
}

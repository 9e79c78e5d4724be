package org.planck.api.telemetry;

import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;

import java.util.Collection;

/**
 * Live flows: the latest rate of each flow at each switch it was seen at. Idle flows expire.
 */
public interface FlowStateService {

    /**
     * All live flow records.
     *
     * @return records, one per (flow, switch)
     */
    Collection<FlowRecord> flows();

    /**
     * The records of one flow, one per switch it was seen at.
     *
     * @param flow the flow
     * @return its records, empty if unknown or expired
     */
    Collection<FlowRecord> flows(FlowKey flow);

    /**
     * The flows placed on a port.
     *
     * @param port switch port
     * @return records whose egress is that port
     */
    Collection<FlowRecord> flowsOn(ConnectPoint port);

    /**
     * Number of live flow records.
     *
     * @return count
     */
    int flowRecordCount();
}

package org.planck.api.telemetry;

/**
 * Cumulative ingestion counters, for metrics and the CLI.
 */
public final class IngestCounters {
    private final long batches;
    private final long rejectedBatches;
    private final long flowRateEvents;
    private final long congestionNotices;
    private final long unknownDevice;
    private final long unknownPort;
    private final long staleEvents;
    private final long lostBatches;
    private final long expiredFlows;
    private final long droppedFlowEvents;
    private final long pintEvents;
    private final long pintUnhandled;

    /**
     * Creates a snapshot.
     *
     * @param batches           accepted batches
     * @param rejectedBatches   malformed batches
     * @param flowRateEvents    FLOW_RATE events applied
     * @param congestionNotices PORT_CONGESTION events applied
     * @param unknownDevice     events skipped for an unknown device
     * @param unknownPort       events skipped for an unknown port
     * @param staleEvents       FLOW_RATE events older than the state they would replace (not applied)
     * @param lostBatches       batches missing from collectors' sequence numbers
     * @param expiredFlows      flow records removed for idleness
     * @param droppedFlowEvents FLOW_RATE events for new flows not applied because the flow table was full
     */
    public IngestCounters(long batches, long rejectedBatches, long flowRateEvents, long congestionNotices,
                          long unknownDevice, long unknownPort, long staleEvents, long lostBatches,
                          long expiredFlows, long droppedFlowEvents) {
        this(batches, rejectedBatches, flowRateEvents, congestionNotices, unknownDevice, unknownPort, staleEvents,
                lostBatches, expiredFlows, droppedFlowEvents, 0, 0);
    }

    /**
     * Creates a snapshot with PINT event counts.
     *
     * @param batches           accepted batches
     * @param rejectedBatches   malformed batches
     * @param flowRateEvents    FLOW_RATE events applied
     * @param congestionNotices PORT_CONGESTION events applied
     * @param unknownDevice     events skipped for an unknown device
     * @param unknownPort       events skipped for an unknown port
     * @param staleEvents       FLOW_RATE events older than the state they would replace
     * @param lostBatches       batches missing from collectors' sequence numbers
     * @param expiredFlows      flow records removed for idleness
     * @param droppedFlowEvents FLOW_RATE events dropped at the flow table's bound
     * @param pintEvents        PINT_PATH and PINT_HOP_LATENCY events handed to path conformance
     * @param pintUnhandled     PINT events skipped because path conformance was not running
     */
    public IngestCounters(long batches, long rejectedBatches, long flowRateEvents, long congestionNotices,
                          long unknownDevice, long unknownPort, long staleEvents, long lostBatches,
                          long expiredFlows, long droppedFlowEvents, long pintEvents, long pintUnhandled) {
        this.pintEvents = pintEvents;
        this.pintUnhandled = pintUnhandled;
        this.batches = batches;
        this.rejectedBatches = rejectedBatches;
        this.flowRateEvents = flowRateEvents;
        this.congestionNotices = congestionNotices;
        this.unknownDevice = unknownDevice;
        this.unknownPort = unknownPort;
        this.staleEvents = staleEvents;
        this.lostBatches = lostBatches;
        this.expiredFlows = expiredFlows;
        this.droppedFlowEvents = droppedFlowEvents;
    }

    public long batches() {
        return batches;
    }

    public long rejectedBatches() {
        return rejectedBatches;
    }

    public long flowRateEvents() {
        return flowRateEvents;
    }

    public long congestionNotices() {
        return congestionNotices;
    }

    public long unknownDevice() {
        return unknownDevice;
    }

    public long unknownPort() {
        return unknownPort;
    }

    public long staleEvents() {
        return staleEvents;
    }

    public long lostBatches() {
        return lostBatches;
    }

    public long expiredFlows() {
        return expiredFlows;
    }

    public long droppedFlowEvents() {
        return droppedFlowEvents;
    }

    public long pintEvents() {
        return pintEvents;
    }

    public long pintUnhandled() {
        return pintUnhandled;
    }
}

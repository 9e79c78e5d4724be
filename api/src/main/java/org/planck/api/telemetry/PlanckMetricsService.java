package org.planck.api.telemetry;

/**
 * Planck's metrics: ingestion counters, traffic-engineering decision latency, reroutes and
 * per-port utilisation, exposed in the Prometheus text format.
 */
public interface PlanckMetricsService {

    /** Content type of {@link #exposition()}. */
    String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /**
     * Records one traffic-engineering decision latency: time from receipt of the telemetry
     * event to submission of the flow rule.
     *
     * @param micros latency in microseconds, >= 0
     */
    void recordDecisionLatencyMicros(long micros);

    /**
     * Every metric in the Prometheus text exposition format, version 0.0.4.
     *
     * @return exposition text
     */
    String exposition();
}

/**
 * Planck's Prometheus metrics: ingestion counters, decision latency, reroutes, port utilisation.
 */
package org.planck.app.metrics;

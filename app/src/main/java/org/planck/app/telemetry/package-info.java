/**
 * Telemetry inside ONOS: collector event ingestion, distributed flow and port state, and
 * port-statistics polling. ONOS components; the congestion and load bookkeeping they use is plain
 * Java in {@code telemetry.algo}.
 */
package org.planck.app.telemetry;

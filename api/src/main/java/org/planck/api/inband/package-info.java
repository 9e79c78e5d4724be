/**
 * In-band network telemetry in the controller: the per-port INT state kept from collectors'
 * INT_PORT signals (telemetry-events-v2), its query service, and the narrow interfaces through
 * which telemetry ingestion hands signals over and INT queue congestion reaches the congestion
 * tracker; and PINT path conformance (telemetry-events-v3 PINT_PATH/PINT_HOP_LATENCY against the
 * routing plan).
 */
package org.planck.api.inband;

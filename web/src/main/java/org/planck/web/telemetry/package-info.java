/**
 * REST resources for telemetry ingestion, flow and port state, and metrics.
 */
package org.planck.web.telemetry;

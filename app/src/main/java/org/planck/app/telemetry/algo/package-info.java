/**
 * Plain-Java telemetry bookkeeping: per-port load ledgers, congestion state with hysteresis,
 * collector congestion notices per port. No ONOS services.
 */
package org.planck.app.telemetry.algo;

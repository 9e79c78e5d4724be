/**
 * Admission control with per-packet latency guarantees (Loko): requests, admitted guarantees,
 * the service that decides, and its events.
 */
package org.planck.api.admission;

/**
 * The traffic-engineering component inside ONOS: feeds flow state, port loads and congestion
 * notices to the TE loop ({@link org.planck.app.te.algo.TeLoop}) and applies its moves as
 * per-flow shadow placements. ONOS component; the policy itself is in {@code te.algo}.
 */
package org.planck.app.te;

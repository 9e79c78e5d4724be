/**
 * The traffic-engineering loop inside ONOS: joins flow state, port load and congestion notices to
 * the TE algorithm ({@link org.planck.app.te}) and applies its moves as per-flow shadow placements.
 */
package org.planck.app.trafficeng;

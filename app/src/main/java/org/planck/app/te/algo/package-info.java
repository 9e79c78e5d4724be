/**
 * Planck traffic engineering as plain classes: the TE loop and its policy (which notices and
 * loads lead to moves, damping), the per-port load that placed flows put on the fabric, and the
 * decision that moves flows off a congested port. No ONOS services: the lab runs the same code.
 */
package org.planck.app.te.algo;

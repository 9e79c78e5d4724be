/**
 * Planck traffic engineering as plain classes: the per-port load that placed flows put on the
 * fabric, and the decision that moves flows off a congested port. No ONOS services.
 */
package org.planck.app.te;

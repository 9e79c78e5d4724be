/**
 * REST resources of traffic engineering: TE mode, reroute log, manual reroute.
 */
package org.planck.web.te;

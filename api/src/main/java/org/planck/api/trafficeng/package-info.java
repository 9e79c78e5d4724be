/**
 * Traffic engineering: the TE mode (Static, Poll, Planck) and manual reroutes.
 */
package org.planck.api.trafficeng;

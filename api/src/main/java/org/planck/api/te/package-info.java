/**
 * Traffic engineering: the TE mode (Static, Poll, Planck), the TE service, reroutes and their
 * events and log.
 */
package org.planck.api.te;

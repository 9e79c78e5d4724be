/**
 * REST views of the controller's INT port state.
 */
package org.planck.web.inband;

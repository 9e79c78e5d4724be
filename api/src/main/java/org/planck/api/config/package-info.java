/**
 * Planck network configuration: collectors, mirror ports, RSPAN VLANs and TE parameters.
 */
package org.planck.api.config;

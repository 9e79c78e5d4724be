/**
 * Planck ONOS components.
 */
package org.planck.app;

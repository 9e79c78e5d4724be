/**
 * Planck public model and service interfaces.
 */
package org.planck.api;

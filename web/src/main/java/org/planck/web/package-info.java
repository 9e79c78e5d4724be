/**
 * Planck REST API.
 */
package org.planck.web;

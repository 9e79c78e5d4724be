/**
 * Live fabric view of a lab run: an HTTP page drawing the emulated fabric with per-link load,
 * congested ports and TE moves as they happen, and the loop-latency histogram. Its JSON has
 * the shapes of the ONOS overlay's {@code planckTopovData} message.
 */
package org.planck.lab.view;

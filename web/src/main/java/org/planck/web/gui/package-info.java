/**
 * Planck's overlay for the ONOS topology view: link load, congested ports and notices,
 * a selected host's shadow paths and reroutes, pushed to the browser over the GUI's
 * websocket as {@code showHighlights} and {@code planckTopovData} messages.
 */
package org.planck.web.gui;

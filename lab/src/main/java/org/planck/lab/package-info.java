/**
 * The lab: Planck's closed loop on the planck-emu fabric without ONOS. The lab controller
 * drives the emulator's control API with the ONOS app's own routing and TE classes, receives
 * collector telemetry on the same schema and codec as the app's REST endpoint, and the
 * experiment runner reproduces Planck's traffic-engineering evaluation.
 */
package org.planck.lab;

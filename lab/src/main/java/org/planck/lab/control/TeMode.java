package org.planck.lab.control;

/**
 * What drives traffic engineering in a lab run (the ONOS app's TE modes).
 */
public enum TeMode {
    /** TE off: every flow stays on its hash-chosen shadow path. */
    STATIC,
    /** Every poll interval, port and rule counters from the fabric feed the TE decision. */
    POLL,
    /** Collector events (flow rates, congestion notices) feed the TE decision: PlanckTE. */
    PLANCK
}

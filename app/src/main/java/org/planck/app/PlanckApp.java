package org.planck.app;

/**
 * Identity of the Planck application in ONOS.
 */
public final class PlanckApp {

    /** Application name, as in app.xml; rules and config are registered under it. */
    public static final String APP_NAME = "org.planck.app";

    private PlanckApp() {
    }
}

package org.planck.app.config;

import org.onosproject.core.CoreService;
import org.onosproject.net.config.NetworkConfigRegistry;

/**
 * Reaches the config manager's protected wiring from tests in other packages.
 */
public final class TestConfigAccess {
    private TestConfigAccess() {
    }

    public static void wire(PlanckConfigManager m, CoreService core, NetworkConfigRegistry registry) {
        m.coreService = core;
        m.configRegistry = registry;
    }

    public static void activate(PlanckConfigManager m) {
        m.activate();
    }
}

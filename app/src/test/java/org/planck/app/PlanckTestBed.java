package org.planck.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.store.service.TestStorageService;
import org.planck.app.config.PlanckConfigManager;
import org.planck.app.config.TestConfigAccess;

import static org.onosproject.net.NetTestTools.injectEventDispatcher;

/**
 * The ONOS services a Planck component needs, as test adapters, plus a real
 * {@link PlanckConfigManager} over an in-memory netcfg registry.
 */
public class PlanckTestBed {
    public static final ApplicationId APP_ID = new DefaultApplicationId(42, PlanckApp.APP_NAME);

    public final SyncEventDelivery events = new SyncEventDelivery();
    public final InMemoryNetworkConfigRegistry netcfg = new InMemoryNetworkConfigRegistry();
    public final TestStorageService storage = new TestStorageService();
    public final TestDeviceService devices = new TestDeviceService();
    public final TestDriverService drivers = new TestDriverService();
    public final TestMastership mastership = new TestMastership();
    public final CoreServiceAdapter core = new CoreServiceAdapter() {
        @Override
        public ApplicationId registerApplication(String name) {
            return APP_ID;
        }

        @Override
        public ApplicationId getAppId(String name) {
            return APP_ID;
        }
    };
    public final PlanckConfigManager config = new PlanckConfigManager();

    public PlanckTestBed() {
        TestConfigAccess.wire(config, core, netcfg);
        injectEventDispatcher(config, events);
        TestConfigAccess.activate(config);
    }

    /**
     * Puts a configuration in force through the config service.
     *
     * @param json configuration
     */
    public void configure(ObjectNode json) {
        config.apply(json);
    }
}

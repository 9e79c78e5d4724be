package org.planck.app.config;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.core.DefaultApplicationId;
import org.planck.api.config.InvalidConfigException;
import org.planck.api.config.PlanckConfig;
import org.planck.api.config.PlanckConfigEvent;
import org.planck.api.config.PlanckSettings;
import org.planck.app.InMemoryNetworkConfigRegistry;
import org.planck.app.PlanckApp;
import org.planck.app.SyncEventDelivery;

import java.util.ArrayList;
import java.util.List;

import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThat;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.onosproject.net.NetTestTools.injectEventDispatcher;
import static org.planck.app.TestConfigs.config;

public class PlanckConfigManagerTest {
    private static final ApplicationId APP = new DefaultApplicationId(7, PlanckApp.APP_NAME);

    private final InMemoryNetworkConfigRegistry netcfg = new InMemoryNetworkConfigRegistry();
    private final List<PlanckConfigEvent> events = new ArrayList<>();
    private PlanckConfigManager manager;

    private final ObjectNode valid = config().k(2).collector("c1", "127.0.0.1", 9100)
            .serve("of:0000000000000001", 5, 1).json();

    @Before
    public void setUp() {
        manager = newManager();
        manager.activate();
        manager.addListener(events::add);
    }

    private PlanckConfigManager newManager() {
        PlanckConfigManager m = new PlanckConfigManager();
        m.coreService = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                assertEquals(PlanckApp.APP_NAME, name);
                return APP;
            }
        };
        m.configRegistry = netcfg;
        injectEventDispatcher(m, new SyncEventDelivery());
        return m;
    }

    @After
    public void tearDown() {
        manager.deactivate();
    }

    @Test
    public void validConfigGoesIntoForceAndIntoNetcfg() {
        PlanckSettings s = manager.apply(valid);
        assertEquals(2, s.shadowPathsPerDestination());
        assertEquals(s, manager.settings().get());
        assertEquals(valid, netcfg.getConfig(APP, PlanckConfig.class).node());
        assertEquals(1, events.size());
        assertEquals(PlanckConfigEvent.Type.CONFIG_UPDATED, events.get(0).type());
    }

    @Test
    public void invalidConfigIsRejectedAndTheOldOneStays() {
        PlanckSettings before = manager.apply(valid);
        events.clear();
        ObjectNode bad = valid.deepCopy();
        bad.put("hysteresisPct", 95);
        try {
            manager.apply(bad);
            fail("invalid config accepted");
        } catch (InvalidConfigException e) {
            assertThat(e.getMessage(), containsString("hysteresisPct"));
        }
        assertEquals(before, manager.settings().get());
        assertEquals(valid, netcfg.getConfig(APP, PlanckConfig.class).node());
        assertThat(manager.lastRejection().get(), containsString("hysteresisPct"));
        assertTrue(events.isEmpty());
    }

    @Test
    public void invalidConfigArrivingThroughNetcfgIsIgnored() {
        PlanckSettings before = manager.apply(valid);
        events.clear();
        ObjectNode bad = valid.deepCopy();
        bad.put("shadowPathsPerDestination", 0);
        netcfg.forceConfig(APP, PlanckConfig.class, bad);
        assertEquals(before, manager.settings().get());
        assertThat(manager.lastRejection().get(), containsString("shadowPathsPerDestination"));
        assertTrue(events.isEmpty());
    }

    @Test
    public void validConfigArrivingThroughNetcfgIsApplied() {
        ObjectNode other = valid.deepCopy();
        other.put("teEnabled", false);
        netcfg.applyConfig(APP, PlanckConfig.class, other);
        assertFalse(manager.settings().get().teEnabled());
        assertEquals(1, events.size());
    }

    @Test
    public void reapplyingTheSameConfigIsNotAChange() {
        manager.apply(valid);
        manager.apply(valid.deepCopy());
        assertEquals(1, events.size());
    }

    @Test
    public void removeTakesTheConfigOutOfForce() {
        manager.apply(valid);
        events.clear();
        assertTrue(manager.remove());
        assertFalse(manager.settings().isPresent());
        assertNull(netcfg.getConfig(APP, PlanckConfig.class));
        assertEquals(PlanckConfigEvent.Type.CONFIG_REMOVED, events.get(0).type());
        assertFalse(manager.remove());
    }

    @Test
    public void picksUpConfigPresentAtActivation() {
        manager.apply(valid);
        PlanckConfigManager second = newManager();
        second.activate();
        assertEquals(manager.settings(), second.settings());
        second.deactivate();
    }
}

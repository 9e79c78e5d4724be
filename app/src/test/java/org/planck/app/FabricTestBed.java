package org.planck.app;

import com.google.common.util.concurrent.MoreExecutors;
import org.onlab.junit.TestUtils;
import org.onosproject.net.DeviceId;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.app.mirror.MirrorManager;
import org.planck.app.routing.ShadowRouteManager;
import org.planck.app.routing.algo.FatTreeFabric;

import java.util.concurrent.ExecutorService;

import static org.onosproject.net.NetTestTools.injectEventDispatcher;

/**
 * A fat tree presented to Planck through ONOS test adapters (devices, links, hosts, flow
 * rules, mastership, drivers, storage), with Planck's config, mirror and shadow route
 * components wired and activated, all running synchronously.
 */
public class FabricTestBed extends PlanckTestBed {
    public final FatTreeFabric fabric;
    public final TestLinkService links = new TestLinkService();
    public final TestHostService hosts = new TestHostService();
    public final TestFlowRuleStore flowRules = new TestFlowRuleStore();
    public final MirrorManager mirrors = new MirrorManager();
    public final ShadowRouteManager routes = new ShadowRouteManager();

    /**
     * Loads a k-ary fat tree: every switch gets ports 1..k+1 at 10 Gb/s (port k+1 is the
     * free mirror port), every link both ways, every host on its edge port.
     *
     * @param k fat tree radix
     */
    public FabricTestBed(int k) {
        fabric = FatTreeFabric.of(k);
        FabricGraph g = fabric.graph();
        for (DeviceId d : g.switches()) {
            devices.addSwitch(d, k + 1, 10_000);
        }
        for (FabricLink l : g.links()) {
            links.addLink(l.src(), l.dst());
        }
        for (FabricHost h : g.hosts()) {
            hosts.addHost(h.mac(), h.ips(), h.location());
        }
        set(mirrors, "configService", config);
        set(mirrors, "deviceService", devices);
        set(mirrors, "driverService", drivers);
        set(mirrors, "mastershipService", mastership);
        set(mirrors, "storageService", storage);
        set(mirrors, "executor", direct());
        injectEventDispatcher(mirrors, events);

        set(routes, "coreService", core);
        set(routes, "configService", config);
        set(routes, "deviceService", devices);
        set(routes, "linkService", links);
        set(routes, "hostService", hosts);
        set(routes, "flowRuleService", flowRules);
        set(routes, "mastershipService", mastership);
        set(routes, "storageService", storage);
        set(routes, "mirrorService", mirrors);
        set(routes, "executor", direct());
        injectEventDispatcher(routes, events);
    }

    public static ExecutorService direct() {
        return MoreExecutors.newDirectExecutorService();
    }

    public static void set(Object target, String field, Object value) {
        try {
            TestUtils.setField(target, field, value);
        } catch (TestUtils.TestUtilsException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void call(Object target, String method) {
        try {
            TestUtils.callMethod(target, method, new Class<?>[0]);
        } catch (TestUtils.TestUtilsException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Activates the mirror and shadow route components. */
    public FabricTestBed start() {
        call(mirrors, "activate");
        call(routes, "activate");
        return this;
    }

    /** Deactivates them. */
    public void stop() {
        call(routes, "deactivate");
        call(mirrors, "deactivate");
    }

}

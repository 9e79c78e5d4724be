package org.planck.app.mirror;

import com.google.common.util.concurrent.MoreExecutors;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.behaviour.MirroringDescription;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.flow.instructions.L2ModificationInstruction;
import org.planck.api.MirrorEvent;
import org.planck.api.MirrorMode;
import org.planck.api.MirrorSession;
import org.planck.app.PlanckTestBed;
import org.planck.app.TestDriverService;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.onosproject.net.NetTestTools.injectEventDispatcher;
import static org.planck.app.TestConfigs.config;

public class MirrorManagerTest {
    private static final DeviceId OVSDB = DeviceId.deviceId("of:0000000000000001");
    private static final DeviceId OPENFLOW = DeviceId.deviceId("of:0000000000000002");
    private static final DeviceId LATE = DeviceId.deviceId("of:0000000000000003");

    private PlanckTestBed bed;
    private MirrorManager mirrors;
    private TestDriverService.RecordingMirroring ovsdbTable;
    private final List<MirrorEvent> events = new ArrayList<>();

    @Before
    public void setUp() {
        bed = new PlanckTestBed();
        bed.devices.addSwitch(OVSDB, 6, 10_000);
        bed.devices.addSwitch(OPENFLOW, 4, 1_000);
        ovsdbTable = bed.drivers.withMirroring(OVSDB);
        mirrors = new MirrorManager();
        mirrors.configService = bed.config;
        mirrors.deviceService = bed.devices;
        mirrors.driverService = bed.drivers;
        mirrors.mastershipService = bed.mastership;
        mirrors.storageService = bed.storage;
        mirrors.executor = MoreExecutors.newDirectExecutorService();
        injectEventDispatcher(mirrors, bed.events);
        mirrors.activate();
        mirrors.addListener(events::add);
    }

    @After
    public void tearDown() {
        mirrors.deactivate();
    }

    private void configureAll() {
        bed.configure(config().collector("c1", "127.0.0.1", 9100)
                .serve(OVSDB.toString(), 5, 11)
                .serve(OPENFLOW.toString(), 4, 12)
                .serve(LATE.toString(), 3, 13).json());
    }

    private static List<PortNumber> ports(long... numbers) {
        List<PortNumber> l = new ArrayList<>();
        for (long n : numbers) {
            l.add(PortNumber.portNumber(n));
        }
        return l;
    }

    @Test
    public void switchWithMirroringConfigMirrorsInTheSwitch() {
        configureAll();
        MirrorSession s = mirrors.session(OVSDB).get();
        assertEquals(MirrorMode.SWITCH_MIRROR, s.mode());
        assertEquals(MirrorSession.State.ACTIVE, s.state());
        assertEquals(ports(1, 2, 3, 4, 6), s.monitoredPorts());
        MirroringDescription d = ovsdbTable.mirrors.get(MirrorManager.MIRROR_NAME);
        List<String> names = List.of("p1", "p2", "p3", "p4", "p6");
        assertEquals(names, d.monitorSrcPorts());
        assertEquals(names, d.monitorDstPorts());
        assertEquals(Optional.of("p5"), d.mirrorPort());
        assertEquals(Optional.of(VlanId.vlanId((short) 11)), d.mirrorVlan());
        assertEquals("br-0000000000000001", ovsdbTable.bridges.get(MirrorManager.MIRROR_NAME));
    }

    @Test
    public void openFlowOnlySwitchMirrorsByFlowOutput() {
        configureAll();
        MirrorSession s = mirrors.session(OPENFLOW).get();
        assertEquals(MirrorMode.FLOW_OUTPUT, s.mode());
        assertEquals(MirrorSession.State.ACTIVE, s.state());
        assertEquals(ports(1, 2, 3), s.monitoredPorts());

        TrafficTreatment base = DefaultTrafficTreatment.builder()
                .setEthDst(org.onlab.packet.MacAddress.valueOf("00:00:00:00:00:07"))
                .setOutput(PortNumber.portNumber(2)).build();
        List<Instruction> out = MirrorOutput.decorate(base, s).allInstructions();
        assertEquals(5, out.size());
        assertEquals(base.allInstructions(), out.subList(0, 2));
        assertEquals(L2ModificationInstruction.L2SubType.VLAN_PUSH,
                ((L2ModificationInstruction) out.get(2)).subtype());
        assertEquals(VlanId.vlanId((short) 12),
                ((L2ModificationInstruction.ModVlanIdInstruction) out.get(3)).vlanId());
        assertEquals(Instructions.createOutput(PortNumber.portNumber(4)), out.get(4));
        // Switches that mirror themselves keep their rules as they are.
        assertEquals(base, MirrorOutput.decorate(base, mirrors.session(OVSDB).get()));
        assertEquals(base, MirrorOutput.decorate(base, null));
    }

    @Test
    public void absentSwitchWaitsAndIsMirroredWhenItArrives() {
        configureAll();
        assertEquals(MirrorSession.State.WAITING_FOR_DEVICE, mirrors.session(LATE).get().state());
        bed.devices.addSwitch(LATE, 3, 1_000);
        MirrorSession s = mirrors.session(LATE).get();
        assertEquals(MirrorSession.State.ACTIVE, s.state());
        assertEquals(MirrorMode.FLOW_OUTPUT, s.mode());
        assertEquals(ports(1, 2), s.monitoredPorts());
    }

    @Test
    public void newPortIsMonitoredToo() {
        configureAll();
        bed.devices.addPort(OVSDB, 7, 10_000);
        assertEquals(ports(1, 2, 3, 4, 6, 7), mirrors.session(OVSDB).get().monitoredPorts());
        assertTrue(ovsdbTable.mirrors.get(MirrorManager.MIRROR_NAME).monitorSrcPorts().contains("p7"));
    }

    @Test
    public void removingTheConfigRemovesEveryMirror() {
        configureAll();
        assertEquals(3, mirrors.sessions().size());
        events.clear();
        bed.config.remove();
        assertTrue(mirrors.sessions().isEmpty());
        assertTrue(ovsdbTable.mirrors.isEmpty());
        assertEquals(3, events.stream().filter(e -> e.type() == MirrorEvent.Type.SESSION_REMOVED).count());
    }

    @Test
    public void switchDroppedFromConfigLosesItsMirror() {
        configureAll();
        bed.configure(config().collector("c1", "127.0.0.1", 9100).serve(OPENFLOW.toString(), 4, 12).json());
        assertFalse(mirrors.session(OVSDB).isPresent());
        assertTrue(ovsdbTable.mirrors.isEmpty());
        assertTrue(mirrors.session(OPENFLOW).isPresent());
    }

    @Test
    public void refusedMirrorIsRecordedAsFailed() {
        ovsdbTable.refuse = true;
        configureAll();
        MirrorSession s = mirrors.session(OVSDB).get();
        assertEquals(MirrorSession.State.FAILED, s.state());
        assertTrue(s.detail(), s.detail().contains("refused"));
    }

    @Test
    public void onlyTheMasterProgramsASwitch() {
        bed.mastership.masteredElsewhere(OVSDB);
        configureAll();
        assertTrue(ovsdbTable.mirrors.isEmpty());
        assertFalse(mirrors.session(OVSDB).isPresent());
        assertTrue(mirrors.session(OPENFLOW).isPresent());
    }

    @Test
    public void explicitBridgeNameWins() {
        bed.configure(config().collector("c1", "127.0.0.1", 9100)
                .serve(OVSDB.toString(), 5, 11, "br-int").json());
        assertEquals("br-int", ovsdbTable.bridges.get(MirrorManager.MIRROR_NAME));
        assertTrue(mirrors.session(OVSDB).get().detail().contains("br-int"));
    }

    @Test
    public void deactivationTakesDownMirrors() {
        configureAll();
        mirrors.deactivate();
        assertTrue(ovsdbTable.mirrors.isEmpty());
        mirrors.executor = MoreExecutors.newDirectExecutorService();
        mirrors.activate();
        assertEquals(MirrorMode.SWITCH_MIRROR, mirrors.session(OVSDB).get().mode());
        assertEquals(1, ovsdbTable.mirrors.size());
    }

    @Test
    public void reconnectedSwitchGetsItsMirrorBackOnce() {
        configureAll();
        bed.devices.setAvailable(OVSDB, false);
        MirrorSession waiting = mirrors.session(OVSDB).get();
        assertEquals(MirrorSession.State.WAITING_FOR_DEVICE, waiting.state());
        assertEquals(MirrorMode.SWITCH_MIRROR, waiting.mode());
        bed.devices.setAvailable(OVSDB, true);
        assertEquals(MirrorSession.State.ACTIVE, mirrors.session(OVSDB).get().state());
        assertEquals(1, ovsdbTable.mirrors.size());
        assertEquals(1, ovsdbTable.deletes.get());
    }
}

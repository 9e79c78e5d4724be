package org.planck.app.mirror;

import com.google.common.collect.ImmutableList;
import org.onosproject.event.AbstractListenerManager;
import org.onosproject.mastership.MastershipEvent;
import org.onosproject.mastership.MastershipListener;
import org.onosproject.mastership.MastershipService;
import org.onosproject.net.AnnotationKeys;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.behaviour.BridgeName;
import org.onosproject.net.behaviour.DefaultMirroringDescription;
import org.onosproject.net.behaviour.MirroringConfig;
import org.onosproject.net.behaviour.MirroringName;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.driver.Driver;
import org.onosproject.net.driver.DriverService;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.MapEvent;
import org.onosproject.store.service.MapEventListener;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.planck.api.MirrorEvent;
import org.planck.api.MirrorListener;
import org.planck.api.MirrorMode;
import org.planck.api.MirrorService;
import org.planck.api.MirrorSession;
import org.planck.api.config.PlanckConfigEvent;
import org.planck.api.config.PlanckConfigListener;
import org.planck.api.config.PlanckConfigService;
import org.planck.api.config.PlanckSettings;
import org.planck.api.config.ServedSwitch;
import org.planck.app.store.PlanckSerializers;
import org.slf4j.Logger;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.onlab.util.Tools.groupedThreads;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * Mirrors every port of each configured switch into its mirror port. Switches whose driver
 * has the MirroringConfig behaviour (OVSDB-managed OVS) mirror in the switch itself; the
 * others are recorded as FLOW_OUTPUT and Planck's own rules on them carry the mirror output
 * (see {@link MirrorOutput}). Sessions live in a consistent map so every node knows each
 * switch's mode; only a switch's master programs it.
 */
@Component(immediate = true, service = MirrorService.class)
public class MirrorManager extends AbstractListenerManager<MirrorEvent, MirrorListener>
        implements MirrorService {

    /** Name of the OVS mirror Planck creates on each bridge. */
    static final String MIRROR_NAME = "planck";

    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PlanckConfigService configService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DriverService driverService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected MastershipService mastershipService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    private final PlanckConfigListener configListener = new InternalConfigListener();
    private final DeviceListener deviceListener = new InternalDeviceListener();
    private final MastershipListener mastershipListener = new InternalMastershipListener();
    private final MapEventListener<DeviceId, MirrorSession> sessionListener = new InternalSessionListener();

    private ConsistentMap<DeviceId, MirrorSession> sessions;
    /** Runs all reconciliation in order; tests replace it with a direct executor. */
    ExecutorService executor;

    @Activate
    protected void activate() {
        sessions = storageService.<DeviceId, MirrorSession>consistentMapBuilder()
                .withName("planck-mirror-sessions")
                .withSerializer(PlanckSerializers.SERIALIZER)
                .build();
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(groupedThreads("planck/mirror", "reconcile", log));
        }
        eventDispatcher.addSink(MirrorEvent.class, listenerRegistry);
        sessions.addListener(sessionListener);
        configService.addListener(configListener);
        deviceService.addListener(deviceListener);
        mastershipService.addListener(mastershipListener);
        executor.execute(this::reconcileAll);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        mastershipService.removeListener(mastershipListener);
        deviceService.removeListener(deviceListener);
        configService.removeListener(configListener);
        executor.shutdown();
        awaitIdle();
        // Take down what this node put up; the other members do the same for theirs.
        for (DeviceId d : ImmutableList.copyOf(sessions.keySet())) {
            if (mastershipService.isLocalMaster(d)) {
                remove(d);
            }
        }
        sessions.removeListener(sessionListener);
        eventDispatcher.removeSink(MirrorEvent.class);
        log.info("Stopped");
    }

    @Override
    public Collection<MirrorSession> sessions() {
        return ImmutableList.copyOf(sessions.asJavaMap().values());
    }

    @Override
    public Optional<MirrorSession> session(DeviceId deviceId) {
        return Optional.ofNullable(Versioned.valueOrNull(sessions.get(deviceId)));
    }

    private void reconcileAll() {
        Set<DeviceId> devices = new HashSet<>(sessions.keySet());
        configService.settings().ifPresent(s -> s.servedSwitches().forEach(sw -> devices.add(sw.deviceId())));
        devices.forEach(this::reconcile);
    }

    private void reconcile(DeviceId deviceId) {
        try {
            Optional<ServedSwitch> wanted = configService.settings().flatMap(s -> s.servedSwitch(deviceId));
            MirrorSession current = Versioned.valueOrNull(sessions.get(deviceId));
            if (wanted.isEmpty()) {
                if (current != null && (mastershipService.isLocalMaster(deviceId)
                        || !deviceService.isAvailable(deviceId))) {
                    remove(deviceId);
                }
                return;
            }
            ServedSwitch sw = wanted.get();
            if (!deviceService.isAvailable(deviceId)) {
                MirrorSession waiting = new MirrorSession(deviceId, sw.mirrorPort(), sw.rspanVlan(),
                        current == null ? MirrorMode.FLOW_OUTPUT : current.mode(), List.of(),
                        MirrorSession.State.WAITING_FOR_DEVICE, "device not available");
                putIfChanged(current, waiting);
                return;
            }
            if (!mastershipService.isLocalMaster(deviceId)) {
                return;
            }
            putIfChanged(current, program(sw, current));
        } catch (RuntimeException e) {
            log.warn("Mirror reconciliation of {} failed", deviceId, e);
        }
    }

    private MirrorSession program(ServedSwitch sw, MirrorSession current) {
        DeviceId deviceId = sw.deviceId();
        List<Port> ports = deviceService.getPorts(deviceId).stream()
                .filter(p -> !p.number().isLogical() && !p.number().equals(sw.mirrorPort()))
                .collect(Collectors.toList());
        List<PortNumber> monitored = ports.stream().map(Port::number).collect(Collectors.toList());
        if (!supportsSwitchMirror(deviceId)) {
            if (current != null && current.mode() == MirrorMode.SWITCH_MIRROR
                    && current.state() == MirrorSession.State.ACTIVE) {
                deleteSwitchMirror(deviceId);
            }
            return new MirrorSession(deviceId, sw.mirrorPort(), sw.rspanVlan(), MirrorMode.FLOW_OUTPUT,
                    monitored, MirrorSession.State.ACTIVE, "mirror output on Planck rules");
        }
        Optional<String> bridge = sw.bridge().or(() -> portName(deviceId, PortNumber.LOCAL));
        if (bridge.isEmpty()) {
            return new MirrorSession(deviceId, sw.mirrorPort(), sw.rspanVlan(), MirrorMode.SWITCH_MIRROR,
                    monitored, MirrorSession.State.FAILED,
                    "bridge name unknown: set \"bridge\" for this switch in the config");
        }
        MirrorSession active = new MirrorSession(deviceId, sw.mirrorPort(), sw.rspanVlan(),
                MirrorMode.SWITCH_MIRROR, monitored, MirrorSession.State.ACTIVE, "bridge " + bridge.get());
        if (active.equals(current)) {
            return current;
        }
        List<String> names = ports.stream().map(this::portName).collect(Collectors.toList());
        String mirrorPortName = portName(deviceId, sw.mirrorPort()).orElse(sw.mirrorPort().toString());
        MirroringConfig mirroring = driverService.createHandler(deviceId).behaviour(MirroringConfig.class);
        if (current != null && current.mode() == MirrorMode.SWITCH_MIRROR) {
            // Replace, never duplicate: the switch may still hold our mirror from before a
            // disconnect or a failed attempt (OVSDB keeps it across controller sessions).
            mirroring.deleteMirroring(MirroringName.mirroringName(MIRROR_NAME));
        }
        boolean ok = mirroring.addMirroring(BridgeName.bridgeName(bridge.get()),
                new DefaultMirroringDescription(MirroringName.mirroringName(MIRROR_NAME), names, names,
                        List.of(), Optional.of(mirrorPortName), Optional.of(sw.rspanVlan())));
        if (!ok) {
            log.warn("{} refused the mirror into port {}", deviceId, sw.mirrorPort());
            return new MirrorSession(deviceId, sw.mirrorPort(), sw.rspanVlan(), MirrorMode.SWITCH_MIRROR,
                    monitored, MirrorSession.State.FAILED, "switch refused the mirror on bridge " + bridge.get());
        }
        log.info("{} mirrors {} ports into {} (VLAN {})", deviceId, monitored.size(), sw.mirrorPort(),
                sw.rspanVlan());
        return active;
    }

    private void remove(DeviceId deviceId) {
        MirrorSession current = Versioned.valueOrNull(sessions.get(deviceId));
        if (current == null) {
            return;
        }
        if (current.mode() == MirrorMode.SWITCH_MIRROR && current.state() == MirrorSession.State.ACTIVE
                && mastershipService.isLocalMaster(deviceId)) {
            deleteSwitchMirror(deviceId);
        }
        sessions.remove(deviceId);
        log.info("Mirror of {} removed", deviceId);
    }

    private void deleteSwitchMirror(DeviceId deviceId) {
        try {
            driverService.createHandler(deviceId).behaviour(MirroringConfig.class)
                    .deleteMirroring(MirroringName.mirroringName(MIRROR_NAME));
        } catch (RuntimeException e) {
            log.warn("Could not delete the mirror on {}", deviceId, e);
        }
    }

    private void putIfChanged(MirrorSession current, MirrorSession next) {
        if (!next.equals(current)) {
            sessions.put(next.deviceId(), next);
        }
    }

    private boolean supportsSwitchMirror(DeviceId deviceId) {
        try {
            Driver driver = driverService.getDriver(deviceId);
            return driver != null && driver.hasBehaviour(MirroringConfig.class);
        } catch (RuntimeException e) {
            // No driver bound (ItemNotFoundException): an OpenFlow-only device as far as we can tell.
            return false;
        }
    }

    private String portName(Port port) {
        String name = port.annotations().value(AnnotationKeys.PORT_NAME);
        return name != null ? name : port.number().toString();
    }

    private Optional<String> portName(DeviceId deviceId, PortNumber number) {
        Port port = deviceService.getPort(deviceId, number);
        return port == null ? Optional.empty()
                : Optional.ofNullable(port.annotations().value(AnnotationKeys.PORT_NAME));
    }

    private class InternalConfigListener implements PlanckConfigListener {
        @Override
        public void event(PlanckConfigEvent event) {
            executor.execute(MirrorManager.this::reconcileAll);
        }
    }

    private class InternalDeviceListener implements DeviceListener {
        @Override
        public boolean isRelevant(DeviceEvent event) {
            switch (event.type()) {
                case DEVICE_ADDED:
                case DEVICE_AVAILABILITY_CHANGED:
                case DEVICE_REMOVED:
                case PORT_ADDED:
                case PORT_REMOVED:
                    return true;
                default:
                    return false;
            }
        }

        @Override
        public void event(DeviceEvent event) {
            DeviceId deviceId = event.subject().id();
            PlanckSettings settings = configService.settings().orElse(null);
            if (settings != null && settings.servedSwitch(deviceId).isPresent()) {
                executor.execute(() -> reconcile(deviceId));
            }
        }
    }

    private class InternalMastershipListener implements MastershipListener {
        @Override
        public void event(MastershipEvent event) {
            if (event.type() == MastershipEvent.Type.MASTER_CHANGED) {
                executor.execute(() -> reconcile(event.subject()));
            }
        }
    }

    private class InternalSessionListener implements MapEventListener<DeviceId, MirrorSession> {
        @Override
        public void event(MapEvent<DeviceId, MirrorSession> event) {
            switch (event.type()) {
                case INSERT:
                case UPDATE:
                    post(new MirrorEvent(MirrorEvent.Type.SESSION_UPDATED, event.newValue().value()));
                    break;
                case REMOVE:
                    post(new MirrorEvent(MirrorEvent.Type.SESSION_REMOVED, event.oldValue().value()));
                    break;
                default:
                    break;
            }
        }
    }

    private void awaitIdle() {
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("Pending work did not finish within 5 s of deactivation");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package org.planck.app.routing;

import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Host;
import org.onosproject.net.HostLocation;
import org.onosproject.net.Link;
import org.onosproject.net.Port;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.host.HostService;
import org.onosproject.net.link.LinkService;
import org.planck.api.config.PlanckSettings;
import org.planck.api.config.ServedSwitch;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.ShadowMacSpace;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Translates ONOS's view of the network into the routing model: available switches, active
 * links between them, and hosts on switch ports that carry no link and are not mirror ports.
 * What the model cannot represent is left out and logged rather than failing the whole plan.
 */
public final class FabricTopology {

    /** Used when a port reports no speed. */
    static final long DEFAULT_CAPACITY_BPS = 10_000_000_000L;
    private static final long BPS_PER_MBPS = 1_000_000L;

    private final Logger log = getLogger(getClass());
    private final DeviceService deviceService;
    private final LinkService linkService;
    private final HostService hostService;

    /**
     * Creates a translator over ONOS services.
     *
     * @param deviceService devices
     * @param linkService   links
     * @param hostService   hosts
     */
    public FabricTopology(DeviceService deviceService, LinkService linkService, HostService hostService) {
        this.deviceService = deviceService;
        this.linkService = linkService;
        this.hostService = hostService;
    }

    /**
     * The fabric as ONOS sees it now.
     *
     * @param settings configuration in force (its mirror ports are never host ports)
     * @return graph
     */
    public FabricGraph snapshot(PlanckSettings settings) {
        FabricGraph.Builder b = FabricGraph.builder();
        Set<DeviceId> switches = new HashSet<>();
        for (Device d : deviceService.getAvailableDevices()) {
            if (d.type() == Device.Type.SWITCH) {
                switches.add(d.id());
                b.addSwitch(d.id());
            }
        }
        Set<ConnectPoint> linkPorts = new HashSet<>();
        for (Link l : linkService.getActiveLinks()) {
            if (l.type() != Link.Type.DIRECT && l.type() != Link.Type.INDIRECT) {
                continue;
            }
            if (!switches.contains(l.src().deviceId()) || !switches.contains(l.dst().deviceId())
                    || l.src().deviceId().equals(l.dst().deviceId())) {
                continue;
            }
            b.addLink(FabricLink.of(l.src(), l.dst(), capacity(l.src())));
            linkPorts.add(l.src());
            linkPorts.add(l.dst());
        }
        Set<ConnectPoint> mirrorPorts = new HashSet<>();
        for (ServedSwitch s : settings.servedSwitches()) {
            mirrorPorts.add(new ConnectPoint(s.deviceId(), s.mirrorPort()));
        }
        List<Host> hosts = new ArrayList<>();
        hostService.getHosts().forEach(hosts::add);
        // Deterministic order so every cluster member resolves conflicts the same way.
        hosts.sort(Comparator.comparingLong(h -> h.mac().toLong()));
        Set<ConnectPoint> hostPorts = new HashSet<>();
        Set<Object> ips = new HashSet<>();
        for (Host h : hosts) {
            MacAddress mac = h.mac();
            HostLocation loc = h.location();
            if (loc == null || mac.isMulticast() || mac.isBroadcast() || ShadowMacSpace.isShadow(mac)) {
                continue;
            }
            ConnectPoint at = new ConnectPoint(loc.deviceId(), loc.port());
            if (at.port().isLogical() || !switches.contains(at.deviceId()) || linkPorts.contains(at) || mirrorPorts.contains(at)) {
                continue;
            }
            if (!hostPorts.add(at)) {
                log.warn("Host {} shares port {} with another host; not routed", mac, at);
                continue;
            }
            if (h.ipAddresses().stream().anyMatch(ips::contains)) {
                log.warn("Host {} shares an IP address with another host; not routed", mac);
                hostPorts.remove(at);
                continue;
            }
            ips.addAll(h.ipAddresses());
            b.addHost(FabricHost.of(mac, h.ipAddresses(), at, capacity(at)));
        }
        return b.build();
    }

    private long capacity(ConnectPoint cp) {
        Port p = deviceService.getPort(cp.deviceId(), cp.port());
        long speed = p == null ? 0 : p.portSpeed();
        return speed > 0 ? speed * BPS_PER_MBPS : DEFAULT_CAPACITY_BPS;
    }
}

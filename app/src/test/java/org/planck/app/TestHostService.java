package org.planck.app;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DefaultHost;
import org.onosproject.net.Host;
import org.onosproject.net.HostId;
import org.onosproject.net.HostLocation;
import org.onosproject.net.host.HostEvent;
import org.onosproject.net.host.HostListener;
import org.onosproject.net.host.HostServiceAdapter;
import org.onosproject.net.provider.ProviderId;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Hosts for component tests; events reach listeners synchronously.
 */
public class TestHostService extends HostServiceAdapter {
    private static final ProviderId PID = new ProviderId("host", "org.planck.test");
    private final Map<HostId, Host> hosts = new ConcurrentHashMap<>();
    private final List<HostListener> listeners = new CopyOnWriteArrayList<>();

    public Host addHost(MacAddress mac, Collection<IpAddress> ips, ConnectPoint at) {
        Host h = new DefaultHost(PID, HostId.hostId(mac), mac, VlanId.NONE, new HostLocation(at, 0),
                ImmutableSet.copyOf(ips));
        hosts.put(h.id(), h);
        fire(new HostEvent(HostEvent.Type.HOST_ADDED, h));
        return h;
    }

    public void moveHost(MacAddress mac, ConnectPoint to) {
        Host old = hosts.get(HostId.hostId(mac));
        Host moved = new DefaultHost(PID, old.id(), mac, VlanId.NONE, new HostLocation(to, 0), old.ipAddresses());
        hosts.put(moved.id(), moved);
        fire(new HostEvent(HostEvent.Type.HOST_MOVED, moved, old));
    }

    private void fire(HostEvent e) {
        listeners.forEach(l -> l.event(e));
    }

    @Override
    public int getHostCount() {
        return hosts.size();
    }

    @Override
    public Iterable<Host> getHosts() {
        return ImmutableList.copyOf(hosts.values());
    }

    @Override
    public Host getHost(HostId hostId) {
        return hosts.get(hostId);
    }

    @Override
    public Set<Host> getHostsByMac(MacAddress mac) {
        Host h = hosts.get(HostId.hostId(mac));
        return h == null ? Set.of() : Set.of(h);
    }

    @Override
    public void addListener(HostListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(HostListener listener) {
        listeners.remove(listener);
    }
}

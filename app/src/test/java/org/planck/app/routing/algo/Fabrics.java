package org.planck.app.routing.algo;

import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;

import java.util.List;

/**
 * Small hand-built fabrics for tests.
 */
final class Fabrics {
    static final long GBPS = 1_000_000_000L;

    private Fabrics() {
    }

    static DeviceId sw(int n) {
        return DeviceId.deviceId(String.format("of:%016x", n));
    }

    static MacAddress mac(int n) {
        return MacAddress.valueOf(0x0000_0b00_0000L + n);
    }

    static FabricHost host(int n, int sw, int port) {
        return FabricHost.of(mac(n), List.of(IpAddress.valueOf(0x0b000000 + n)),
                             new ConnectPoint(sw(sw), PortNumber.portNumber(port)), GBPS);
    }

    static FabricLink link(int a, int pa, int b, int pb) {
        return FabricLink.of(sw(a), PortNumber.portNumber(pa), sw(b), PortNumber.portNumber(pb), GBPS);
    }

    /** A ring of n switches; switch i has port 2 toward i+1, port 3 toward i-1 and host i on port 1. */
    static FabricGraph ring(int n) {
        FabricGraph.Builder b = FabricGraph.builder();
        for (int i = 0; i < n; i++) {
            b.addSwitch(sw(i));
        }
        for (int i = 0; i < n; i++) {
            b.addBidirectionalLink(link(i, 2, (i + 1) % n, 3));
            b.addHost(host(i, i, 1));
        }
        return b.build();
    }

    /** A line of n switches with one host at each end (only one path exists). */
    static FabricGraph line(int n) {
        FabricGraph.Builder b = FabricGraph.builder();
        for (int i = 0; i < n; i++) {
            b.addSwitch(sw(i));
        }
        for (int i = 0; i + 1 < n; i++) {
            b.addBidirectionalLink(link(i, 2, i + 1, 3));
        }
        b.addHost(host(0, 0, 1)).addHost(host(1, n - 1, 1));
        return b.build();
    }

    /** Two switches joined by {@code parallel} links, two hosts on each. */
    static FabricGraph parallel(int parallel) {
        FabricGraph.Builder b = FabricGraph.builder().addSwitch(sw(0)).addSwitch(sw(1));
        for (int i = 0; i < parallel; i++) {
            b.addBidirectionalLink(link(0, 10 + i, 1, 10 + i));
        }
        b.addHost(host(0, 0, 1)).addHost(host(1, 0, 2)).addHost(host(2, 1, 1)).addHost(host(3, 1, 2));
        return b.build();
    }

    /**
     * An irregular mesh of 7 switches: hosts on 0, 3, 5 and 6; a bridge 4-5 makes 5 single-homed.
     * <pre>
     *   0 - 1 - 2
     *   |   | / |
     *   3 - 4 - 6
     *       |
     *       5
     * </pre>
     */
    static FabricGraph irregular() {
        FabricGraph.Builder b = FabricGraph.builder();
        for (int i = 0; i < 7; i++) {
            b.addSwitch(sw(i));
        }
        b.addBidirectionalLink(link(0, 2, 1, 2))
                .addBidirectionalLink(link(1, 3, 2, 2))
                .addBidirectionalLink(link(0, 3, 3, 2))
                .addBidirectionalLink(link(1, 4, 4, 2))
                .addBidirectionalLink(link(2, 3, 4, 3))
                .addBidirectionalLink(link(2, 4, 6, 2))
                .addBidirectionalLink(link(3, 3, 4, 4))
                .addBidirectionalLink(link(4, 5, 6, 3))
                .addBidirectionalLink(link(4, 6, 5, 2));
        b.addHost(host(0, 0, 1)).addHost(host(1, 3, 1)).addHost(host(2, 5, 1)).addHost(host(3, 6, 1))
                .addHost(host(4, 6, 5));
        return b.build();
    }
}

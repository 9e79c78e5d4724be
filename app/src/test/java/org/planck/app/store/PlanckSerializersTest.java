package org.planck.app.store;

import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.FlowKey;
import org.planck.api.MirrorMode;
import org.planck.api.MirrorSession;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.ShadowPathId;

import java.util.List;

import static org.junit.Assert.assertEquals;

public class PlanckSerializersTest {

    private static <T> T roundTrip(T value) {
        return PlanckSerializers.SERIALIZER.decode(PlanckSerializers.SERIALIZER.encode(value));
    }

    @Test
    public void mirrorSessionsSurviveTheWire() {
        MirrorSession s = new MirrorSession(DeviceId.deviceId("of:0000000000000001"), PortNumber.portNumber(5),
                VlanId.vlanId((short) 7), MirrorMode.SWITCH_MIRROR,
                List.of(PortNumber.portNumber(3), PortNumber.portNumber(1)), MirrorSession.State.ACTIVE, "bridge br0");
        MirrorSession back = roundTrip(s);
        assertEquals(s, back);
        assertEquals(List.of(PortNumber.portNumber(1), PortNumber.portNumber(3)), back.monitoredPorts());
    }

    @Test
    public void shadowPathIdsSurviveTheWire() {
        ShadowPathId k = ShadowPathId.of(MacAddress.valueOf("00:00:00:00:00:2a"), 3);
        assertEquals(k, roundTrip(k));
        assertEquals(MacAddress.valueOf("02:70:00:00:00:01"), roundTrip(MacAddress.valueOf("02:70:00:00:00:01")));
    }

    @Test
    public void flowPlacementsSurviveTheWire() {
        FlowKey flow = FlowKey.of(IpAddress.valueOf("10.0.0.2"), IpAddress.valueOf("10.1.0.2"), 6, 40000, 80);
        FlowPlacement p = FlowPlacement.of(MacAddress.valueOf("00:00:0a:00:00:02"),
                MacAddress.valueOf("00:00:0a:01:00:02"), 2, 1250.5);
        assertEquals(flow, roundTrip(flow));
        assertEquals(p, roundTrip(p));
    }
}

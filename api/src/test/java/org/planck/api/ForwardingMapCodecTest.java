package org.planck.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Test;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

public class ForwardingMapCodecTest {
    private final ObjectMapper mapper = new ObjectMapper();

    private static ForwardingMap documentedExample() {
        return new ForwardingMap("c1", 12, List.of(new SwitchForwarding(
                DeviceId.deviceId("of:0000000000000001"), VlanId.vlanId((short) 1), PortNumber.portNumber(5),
                List.of(new PortCapacity(PortNumber.portNumber(3), 10_000_000_000L),
                        new PortCapacity(PortNumber.portNumber(1), 10_000_000_000L)),
                Map.of(MacAddress.valueOf("02:70:00:00:00:09"), PortNumber.portNumber(3),
                        MacAddress.valueOf("00:00:00:00:00:01"), PortNumber.portNumber(1)))));
    }

    private JsonNode resource(String name) throws IOException {
        try (InputStream in = getClass().getResourceAsStream(name)) {
            return mapper.readTree(in);
        }
    }

    @Test
    public void encodesExactlyTheDocumentedExample() throws IOException {
        // Ports and entries come out sorted whatever order they were given in.
        // Compared as wire text: JSON node equality would also compare int vs long node types.
        assertEquals(mapper.writeValueAsString(resource("forwarding-map-example.json")),
                mapper.writeValueAsString(ForwardingMapCodec.encode(documentedExample(), mapper)));
    }

    @Test
    public void decodesWhatItEncodes() throws IOException {
        ForwardingMap decoded = ForwardingMapCodec.decode(resource("forwarding-map-example.json"));
        assertEquals(documentedExample(), decoded);
        assertTrue(decoded.sameContent(documentedExample().withGeneration(13)));
        assertFalse(decoded.equals(documentedExample().withGeneration(13)));
    }

    @Test
    public void rejectsWhatIsNotAVersionOneMap() throws IOException {
        ObjectNode good = (ObjectNode) resource("forwarding-map-example.json");
        String[][] cases = {{"version", "2"}, {"collector", "7"}, {"generation", "-1"}, {"switches", "{}"}};
        for (String[] c : cases) {
            ObjectNode bad = good.deepCopy();
            bad.set(c[0], mapper.readTree(c[1]));
            try {
                ForwardingMapCodec.decode(bad);
                fail("accepted " + c[0] + "=" + c[1]);
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage(), e.getMessage().startsWith(c[0]));
            }
        }
    }
}

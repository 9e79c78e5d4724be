package org.planck.api.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.VlanId;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.io.IOException;
import java.io.InputStream;
import java.util.function.Consumer;

import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThat;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

public class PlanckSettingsTest {
    private final ObjectMapper mapper = new ObjectMapper();
    private ObjectNode example;

    @Before
    public void setUp() throws IOException {
        try (InputStream in = getClass().getResourceAsStream("planck-config.json")) {
            example = (ObjectNode) mapper.readTree(in);
        }
    }

    @Test
    public void parsesTheDocumentedExample() {
        PlanckSettings s = PlanckSettings.parse(example);
        assertEquals(80.0, s.congestionThresholdPct(), 0);
        assertEquals(5.0, s.hysteresisPct(), 0);
        assertEquals(4, s.shadowPathsPerDestination());
        assertTrue(s.teEnabled());
        assertEquals(100, s.rerouteDampingMs());
        assertEquals(5, s.flowReportIntervalMs());
        assertEquals(PlanckSettings.DEFAULT_ELEPHANT_THRESHOLD_PCT, s.elephantThresholdPct(), 0);
        assertEquals(2, s.collectors().size());
        CollectorConfig c1 = s.collector("c1").get();
        assertEquals(IpAddress.valueOf("10.0.0.100"), c1.address());
        assertEquals(9100, c1.controlPort());
        ServedSwitch e2 = s.servedSwitch(DeviceId.deviceId("of:0000000000000002")).get();
        assertEquals(PortNumber.portNumber(5), e2.mirrorPort());
        assertEquals(VlanId.vlanId((short) 2), e2.rspanVlan());
        assertEquals("br-e2", e2.bridge().get());
        assertFalse(s.servedSwitch(DeviceId.deviceId("of:0000000000000001")).get().bridge().isPresent());
        assertEquals(IpAddress.valueOf("fd00::64"), s.collector("c2").get().address());
        assertEquals(3, s.servedSwitches().size());
        assertEquals(example, s.json());
    }

    @Test
    public void fillsDefaults() {
        PlanckSettings s = PlanckSettings.parse(mapper.createObjectNode());
        assertEquals(PlanckSettings.DEFAULT_CONGESTION_THRESHOLD_PCT, s.congestionThresholdPct(), 0);
        assertEquals(PlanckSettings.DEFAULT_SHADOW_PATHS_PER_DESTINATION, s.shadowPathsPerDestination());
        assertEquals(PlanckSettings.DEFAULT_TE_ENABLED, s.teEnabled());
        assertTrue(s.collectors().isEmpty());
    }

    @Test
    public void controlCredentialsAreOptional() {
        assertFalse(PlanckSettings.parse(example).collector("c1").get().controlAuthorization().isPresent());
        ObjectNode secured = example.deepCopy();
        collector(secured, 0).put("controlUsername", "te").put("controlPassword", "s3cret");
        CollectorConfig c1 = PlanckSettings.parse(secured).collector("c1").get();
        assertEquals("Basic dGU6czNjcmV0", c1.controlAuthorization().get());
        assertFalse(c1.toString().contains("s3cret"));
    }

    @Test
    public void equalConfigsAreEqual() {
        assertEquals(PlanckSettings.parse(example), PlanckSettings.parse(example.deepCopy()));
        ObjectNode other = example.deepCopy();
        other.put("teEnabled", false);
        assertFalse(PlanckSettings.parse(example).equals(PlanckSettings.parse(other)));
    }

    private void rejects(String expected, Consumer<ObjectNode> mutation) {
        ObjectNode bad = example.deepCopy();
        mutation.accept(bad);
        try {
            PlanckSettings.parse(bad);
            fail("accepted a config that should fail with: " + expected);
        } catch (InvalidConfigException e) {
            assertThat(e.getMessage(), containsString(expected));
        }
        PlanckConfig config = new PlanckConfig();
        config.init(new DefaultApplicationId(1, "org.planck.app"), PlanckConfig.KEY, bad, mapper, c -> { });
        assertFalse(config.isValid());
        assertThat(config.invalidReason().get(), containsString(expected));
    }

    private static ObjectNode collector(ObjectNode root, int i) {
        return (ObjectNode) root.get("collectors").get(i);
    }

    private static ObjectNode sw(ObjectNode root, int c, int s) {
        return (ObjectNode) collector(root, c).get("switches").get(s);
    }

    @Test
    public void rejectsOutOfRangeParameters() {
        rejects("congestionThresholdPct must be in (0, 100]", n -> n.put("congestionThresholdPct", 0));
        rejects("congestionThresholdPct must be in (0, 100]", n -> n.put("congestionThresholdPct", 100.5));
        rejects("congestionThresholdPct must be a number", n -> n.put("congestionThresholdPct", "80"));
        rejects("hysteresisPct must be in [0, congestionThresholdPct)", n -> n.put("hysteresisPct", 80));
        rejects("hysteresisPct must be in [0, congestionThresholdPct)", n -> n.put("hysteresisPct", -1));
        rejects("shadowPathsPerDestination must be in [1, 64]", n -> n.put("shadowPathsPerDestination", 0));
        rejects("shadowPathsPerDestination must be in [1, 64]", n -> n.put("shadowPathsPerDestination", 65));
        rejects("shadowPathsPerDestination must be an integer", n -> n.put("shadowPathsPerDestination", 2.5));
        rejects("teEnabled must be true or false", n -> n.put("teEnabled", "yes"));
        rejects("rerouteDampingMs must be in [0, 60000]", n -> n.put("rerouteDampingMs", -5));
        rejects("flowReportIntervalMs must be in [1, 1000]", n -> n.put("flowReportIntervalMs", 0));
        rejects("elephantThresholdPct must be in [0, 100]", n -> n.put("elephantThresholdPct", -1));
        rejects("elephantThresholdPct must be in [0, 100]", n -> n.put("elephantThresholdPct", 101));
        rejects("elephantThresholdPct must be a number", n -> n.put("elephantThresholdPct", "10"));
        assertEquals(0.0, PlanckSettings.parse(example.deepCopy().put("elephantThresholdPct", 0))
                .elephantThresholdPct(), 0);
        rejects("unknown field congestionThreshold", n -> n.put("congestionThreshold", 50));
        rejects("collectors must be an array", n -> n.put("collectors", "c1"));
    }

    @Test
    public void rejectsBadCollectors() {
        rejects("collectors[0].id must be a string", n -> collector(n, 0).remove("id"));
        rejects("collectors[0].id must be 1-64 characters", n -> collector(n, 0).put("id", "c 1"));
        rejects("duplicate collector id c1", n -> collector(n, 1).put("id", "c1"));
        rejects("collectors[0].address is not an IP address", n -> collector(n, 0).put("address", "collector.lab"));
        rejects("collectors[1].controlPort must be in [1, 65535]", n -> collector(n, 1).put("controlPort", 70000));
        rejects("collectors[0].controlPort is required", n -> collector(n, 0).remove("controlPort"));
        rejects("controlUsername and controlPassword go together",
            n -> collector(n, 0).put("controlUsername", "te"));
        rejects("collectors[0].controlUsername must be non-empty",
            n -> collector(n, 0).put("controlUsername", "a:b").put("controlPassword", "x"));
        rejects("collectors[0].switches must be an array", n -> collector(n, 0).remove("switches"));
        rejects("unknown field collectors[0].port", n -> collector(n, 0).put("port", 1));
        rejects("collectors[0] must be an object", n -> ((ArrayNode) n.get("collectors")).insert(0, "c0"));
    }

    @Test
    public void rejectsBadSwitches() {
        rejects("collectors[0].switches[0].device is not a device id", n -> sw(n, 0, 0).put("device", "0001"));
        rejects("collectors[0].switches[0].device is not a device id", n -> sw(n, 0, 0).put("device", "of:bad^id"));
        rejects("collectors[0].switches[1].mirrorPort must be in", n -> sw(n, 0, 1).put("mirrorPort", 0));
        rejects("collectors[0].switches[1].mirrorPort must be an integer", n -> sw(n, 0, 1).put("mirrorPort", "5"));
        rejects("collectors[0].switches[0].rspanVlan must be in [1, 4094]", n -> sw(n, 0, 0).put("rspanVlan", 4095));
        rejects("collectors[0].switches[0].rspanVlan is required", n -> sw(n, 0, 0).remove("rspanVlan"));
        rejects("VLAN 1 already identifies another switch of collector c1", n -> sw(n, 0, 1).put("rspanVlan", 1));
        rejects("device of:0000000000000001 listed twice",
                n -> sw(n, 0, 1).put("device", "of:0000000000000001"));
        rejects("served by both collector c1 and collector c2",
                n -> sw(n, 1, 0).put("device", "of:0000000000000002"));
        rejects("bridge must be 1-15 characters", n -> sw(n, 0, 1).put("bridge", "a-very-long-bridge-name"));
        rejects("unknown field collectors[1].switches[0].vlan", n -> sw(n, 1, 0).put("vlan", 3));
    }

    @Test
    public void rejectsNonObjects() {
        for (JsonNode n : new JsonNode[]{null, mapper.createArrayNode(), mapper.getNodeFactory().textNode("x")}) {
            try {
                PlanckSettings.parse(n);
                fail("accepted " + n);
            } catch (InvalidConfigException e) {
                assertThat(e.getMessage(), containsString("must be a JSON object"));
            }
        }
    }

    @Test
    public void congestionSignalDefaultsToMirrorsAndParsesEachValue() {
        PlanckSettings d = PlanckSettings.parse(mapper.createObjectNode());
        assertEquals(CongestionSignal.MIRRORS, d.congestionSignal());
        assertEquals(1000, d.intQueueThreshold());
        assertEquals("hysteresis defaults to a fifth of the threshold", 200, d.intQueueHysteresis());
        for (CongestionSignal sig : CongestionSignal.values()) {
            ObjectNode n = example.deepCopy();
            n.put("congestionSignal", sig.configName());
            assertEquals(sig, PlanckSettings.parse(n).congestionSignal());
        }
        ObjectNode q = example.deepCopy();
        q.put("intQueueThreshold", 64);
        PlanckSettings s = PlanckSettings.parse(q);
        assertEquals(64, s.intQueueThreshold());
        assertEquals(12, s.intQueueHysteresis());
        q.put("intQueueHysteresis", 0);
        assertEquals(0, PlanckSettings.parse(q).intQueueHysteresis());
        assertFalse(PlanckSettings.parse(q).equals(s));
    }

    @Test
    public void rejectsBadCongestionSignalSettings() {
        rejects("congestionSignal must be one of \"mirrors\", \"int\", \"both\", got \"INT\"",
                n -> n.put("congestionSignal", "INT"));
        rejects("congestionSignal must be one of \"mirrors\", \"int\", \"both\", got \"\"",
                n -> n.put("congestionSignal", ""));
        rejects("congestionSignal must be one of", n -> n.put("congestionSignal", 1));
        rejects("intQueueThreshold must be in [1, 16777215], got 0", n -> n.put("intQueueThreshold", 0));
        rejects("intQueueThreshold must be in [1, 16777215], got 16777216", n -> n.put("intQueueThreshold", 1 << 24));
        rejects("intQueueThreshold must be an integer", n -> n.put("intQueueThreshold", 1.5));
        rejects("intQueueHysteresis must be in [0, 999], got 1000", n -> n.put("intQueueHysteresis", 1000));
        rejects("intQueueHysteresis must be in [0, 49], got -1", n -> n.put("intQueueThreshold", 50)
                .put("intQueueHysteresis", -1));
    }
}

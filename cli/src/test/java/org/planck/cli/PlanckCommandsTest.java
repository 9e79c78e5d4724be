package org.planck.cli;

import org.planck.api.MirrorMode;
import org.planck.api.TestPlanckServices;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Test;

import java.util.List;

import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThat;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.planck.api.TestPlanckServices.A;
import static org.planck.api.TestPlanckServices.B;
import static org.planck.api.TestPlanckServices.S1;
import static org.planck.api.TestPlanckServices.S2;

public class PlanckCommandsTest {
    private final ObjectMapper mapper = new ObjectMapper();
    private final TestPlanckServices.Routes routes = new TestPlanckServices.Routes();

    @Test
    public void pathsOfAHostAndOfAPair() {
        List<String> lines = ShadowPathsCommand.lines(routes, "00:00:00:00:00:0b", null);
        assertEquals("host 00:00:00:00:00:0b at of:0000000000000002/1, 1 shadow tree(s)", lines.get(0));
        assertThat(lines.get(1), containsString("tree 0  shadowMac=02:70:00:00:00:00"));
        List<String> pair = ShadowPathsCommand.lines(routes, "00-00-00-00-00-0B", A.toString());
        assertThat(pair.get(2), containsString("default path 0"));
        assertThat(pair.get(3), containsString(S1 + "/2 -> " + S2 + "/1"));
        ObjectNode json = ShadowPathsCommand.json(routes, B.toString(), A.toString(), mapper);
        assertEquals(0, json.get("chosenIndex").asInt());
        assertEquals(2, json.get("paths").get(0).get("hops").size());
    }

    @Test
    public void badOrUnknownHostsAreReported() {
        for (String[] c : new String[][]{{"zz", null, "malformed MAC address: zz"},
                {"00:00:00:00:00:99", null, "unknown host 00:00:00:00:00:99"},
                {B.toString(), "00:00:00:00:00:98", "unknown host 00:00:00:00:00:98"}}) {
            try {
                ShadowPathsCommand.lines(routes, c[0], c[1]);
                fail("accepted " + c[0] + " " + c[1]);
            } catch (IllegalArgumentException e) {
                assertEquals(c[2], e.getMessage());
            }
        }
    }

    @Test
    public void mirrorsOnePerLine() {
        TestPlanckServices.Mirrors mirrors = new TestPlanckServices.Mirrors();
        assertThat(MirrorsCommand.lines(mirrors).get(0), containsString("no mirror sessions"));
        mirrors.sessions.add(TestPlanckServices.session(S2, MirrorMode.FLOW_OUTPUT));
        mirrors.sessions.add(TestPlanckServices.session(S1, MirrorMode.SWITCH_MIRROR));
        List<String> lines = MirrorsCommand.lines(mirrors);
        assertEquals(2, lines.size());
        assertEquals("device=of:0000000000000001 mirrorPort=5 rspanVlan=7 mode=SWITCH_MIRROR state=ACTIVE "
                + "monitoredPorts=2", lines.get(0));
        assertThat(lines.get(1), containsString("mode=FLOW_OUTPUT"));
    }

    @Test
    public void configShowsWhatIsInForce() throws Exception {
        TestPlanckServices.Config config = new TestPlanckServices.Config();
        assertEquals(List.of("Planck is not configured"), ConfigCommand.lines(config, mapper));
        config.apply(mapper.readTree("{\"shadowPathsPerDestination\": 3, \"teEnabled\": false}"));
        List<String> lines = ConfigCommand.lines(config, mapper);
        assertThat(lines.get(0), containsString("shadowPathsPerDestination=3 teEnabled=false"));
        assertEquals(mapper.readTree("{\"shadowPathsPerDestination\": 3, \"teEnabled\": false}"),
                mapper.readTree(lines.get(1)));
    }

    @Test
    public void forwardingMapOfACollector() {
        TestPlanckServices.Maps maps = new TestPlanckServices.Maps();
        List<String> lines = ForwardingMapCommand.lines(maps, "c1");
        assertEquals("collector c1, generation 12, 1 switch(es)", lines.get(0));
        assertThat(lines.get(1), containsString("delivered=3 (generation 12) failedAttempts=1"));
        assertThat(lines.get(2), containsString("of:0000000000000001 rspanVlan=1 mirrorPort=5 ports=1@10000Mbps"));
        assertTrue(lines.contains("    00:00:00:00:00:0a -> 1"));
        assertTrue(lines.contains("    02:70:00:00:00:00 -> 2"));
        try {
            ForwardingMapCommand.lines(maps, "nope");
            fail("unknown collector accepted");
        } catch (IllegalArgumentException e) {
            assertEquals("unknown collector nope", e.getMessage());
        }
    }

    @Test
    public void completersOfferRoutedHostsAndCollectors() throws Exception {
        assertEquals(List.of("00:00:00:00:00:0a", "00:00:00:00:00:0b"), RoutedHostCompleter.choices(routes));
        TestPlanckServices.Config config = new TestPlanckServices.Config();
        assertEquals(List.of(), CollectorIdCompleter.choices(config));
        config.apply(mapper.readTree("{\"collectors\": [{\"id\": \"z9\", \"address\": \"10.0.0.9\","
                + " \"controlPort\": 9100, \"switches\": []}, {\"id\": \"c1\", \"address\": \"10.0.0.1\","
                + " \"controlPort\": 9100, \"switches\": []}]}"));
        assertEquals(List.of("c1", "z9"), CollectorIdCompleter.choices(config));
    }
}

package org.planck.cli.admission;

import org.junit.Test;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.admission.AdmissionCounters;
import org.planck.api.admission.AdmissionRejectedException;
import org.planck.api.admission.AdmissionService;
import org.planck.api.admission.Guarantee;
import org.planck.api.admission.GuaranteeHop;
import org.planck.api.admission.GuaranteeListener;
import org.planck.api.admission.GuaranteeRequest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

public class GuaranteeCommandTest {

    /** Admits anything up to 1 MB/s in total; records requests. */
    private static final class FakeAdmission implements AdmissionService {
        final Map<String, Guarantee> admitted = new LinkedHashMap<>();
        final List<GuaranteeRequest> asked = new ArrayList<>();

        @Override
        public Guarantee admit(GuaranteeRequest r) throws AdmissionRejectedException {
            asked.add(r);
            if (r.rateBytesPerSec() > 1_000_000) {
                throw new AdmissionRejectedException(AdmissionRejectedException.Reason.NO_CAPACITY,
                        "switch of:1 over capacity");
            }
            String id = "g" + (admitted.size() + 1);
            Guarantee g = new Guarantee(id, r, MacAddress.valueOf("00:00:0a:00:00:02"),
                    MacAddress.valueOf("00:00:0a:01:00:02"), 2,
                    List.of(GuaranteeHop.of(DeviceId.deviceId("of:1"), PortNumber.portNumber(1), 1_000_000_000L)),
                    1_234_500, Guarantee.Policing.METER, null, 0);
            admitted.put(id, g);
            return g;
        }

        @Override
        public boolean remove(String id) {
            return admitted.remove(id) != null;
        }

        @Override
        public List<Guarantee> guarantees() {
            return new ArrayList<>(admitted.values());
        }

        @Override
        public Optional<Guarantee> guarantee(String id) {
            return Optional.ofNullable(admitted.get(id));
        }

        @Override
        public Map<String, Long> currentBounds() {
            Map<String, Long> m = new LinkedHashMap<>();
            admitted.keySet().forEach(k -> m.put(k, 2_000_000L));
            return m;
        }

        @Override
        public AdmissionCounters counters() {
            return new AdmissionCounters(admitted.size(), 0, 0, 3, 42);
        }

        @Override
        public void addListener(GuaranteeListener listener) {
        }

        @Override
        public void removeListener(GuaranteeListener listener) {
        }
    }

    private static List<String> add(AdmissionService a, String src, String dst, String rate, String deadline)
            throws AdmissionRejectedException {
        return GuaranteeCommand.run(a, "add", src, dst, "17", "1000", "5000", rate, "3000", "1500", "64", deadline);
    }

    @Test
    public void addsListsAndRemoves() throws Exception {
        FakeAdmission a = new FakeAdmission();
        List<String> out = add(a, "10.0.0.2", "10.1.0.2", "500000", "2000");
        assertEquals(List.of("g1  10.0.0.2:1000->10.1.0.2:5000/17  rate=500000B/s burst=3000B deadline=2000.0us "
                + "bound=1234.5us path=2 policing=METER"), out);
        assertEquals(2_000_000, a.asked.get(0).deadlineNanos());
        GuaranteeCommand.run(a, "add", "00:00:0a:00:00:02", "00:00:0a:01:00:02", null, null, null, "1000", "3000",
                "1500", "64", "5000");
        assertTrue(a.asked.get(1).flow().isEmpty());
        assertEquals(MacAddress.valueOf("00:00:0a:01:00:02"), a.asked.get(1).dst().orElseThrow());
        List<String> list = GuaranteeCommand.run(a, "list", null, null, null, null, null, null, null, "1500", "64",
                null);
        assertEquals(3, list.size());
        assertTrue(list.get(0), list.get(0).contains("bound=2000.0us"));
        assertTrue(list.get(2), list.get(2).startsWith("2 guarantee(s); admitted=2"));
        assertEquals(List.of("removed g1"), GuaranteeCommand.run(a, "remove", "g1", null, null, null, null, null,
                null, "1500", "64", null));
        assertEquals(1, a.admitted.size());
    }

    @Test
    public void badArgumentsChangeNothing() throws Exception {
        FakeAdmission a = new FakeAdmission();
        expectBad(() -> add(a, "10.0.0.2", "10.1.0.2", "-5", "2000"), "--rate: expected 1..");
        expectBad(() -> add(a, "10.0.0.2", "10.1.0.2", "lots", "2000"), "--rate: not a number: lots");
        expectBad(() -> add(a, "10.0.0.2", "10.1.0.2", "1000", "0"), "--deadline-us: expected 1..");
        expectBad(() -> add(a, "host-a", "10.1.0.2", "1000", "2000"), "src: not an IP address or MAC: host-a");
        expectBad(() -> add(a, "10.0.0.2", "::1", "1000", "2000"), "IP version differs");
        expectBad(() -> GuaranteeCommand.run(a, "add", "10.0.0.2", "10.1.0.2", null, "1", "2", "1000", "3000",
                "1500", "64", "2000"), "--proto: missing");
        expectBad(() -> GuaranteeCommand.run(a, "add", "10.0.0.2", "10.1.0.2", "17", "1", "2", "1000", "100",
                "1500", "64", "2000"), "burst 100 must hold at least one max-size packet");
        expectBad(() -> GuaranteeCommand.run(a, "remove", "g7", null, null, null, null, null, null, "1500", "64",
                null), "unknown guarantee g7");
        expectBad(() -> GuaranteeCommand.run(a, "purge", null, null, null, null, null, null, null, "1500", "64",
                null), "unknown action purge");
        assertTrue(a.asked.isEmpty());
        try {
            add(a, "10.0.0.2", "10.1.0.2", "2000000", "2000");
            fail("admitted");
        } catch (AdmissionRejectedException e) {
            assertEquals("switch of:1 over capacity", e.getMessage());
        }
        assertTrue(a.admitted.isEmpty());
    }

    private interface Action {
        void run() throws Exception;
    }

    private static void expectBad(Action a, String message) throws Exception {
        try {
            a.run();
            fail("accepted");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().contains(message));
        }
    }
}

package org.planck.api.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

import static org.junit.Assert.assertTrue;

/**
 * Property tests of the parsers that take network input, driving the fuzz targets with
 * seeded random mutations of valid documents and with random text. Each property holds for
 * every input: accepted inputs satisfy the documented constraints and round-trip; everything
 * else is rejected with the parser's own exception.
 */
public class ParserPropertiesTest {
    private static final int CASES = 3000;
    private final ObjectMapper mapper = new ObjectMapper();
    private final JsonNodeFactory f = JsonNodeFactory.instance;

    private JsonNode resource(String path) throws IOException {
        try (InputStream in = getClass().getResourceAsStream(path)) {
            return mapper.readTree(in);
        }
    }

    /** A random JSON value, biased toward boundary numbers and near-miss strings. */
    private JsonNode randomValue(Random r) {
        switch (r.nextInt(12)) {
            case 0: return f.nullNode();
            case 1: return f.booleanNode(r.nextBoolean());
            case 2: return f.numberNode(r.nextInt(5) - 1);
            case 3: return f.numberNode(new long[]{0, 1, 64, 65, 100, 4094, 4095, 65535, 65536, -1,
                    0xffffff00L, Long.MAX_VALUE}[r.nextInt(12)]);
            case 4: return f.numberNode(r.nextDouble() * 200 - 50);
            case 5: return f.textNode(new String[]{"", "c1", "of:0000000000000001", "10.0.0.1", "fd00::1",
                    "not an ip", "01:02:03:04:05:06", "02:70:00:00:00:09", "zz:zz:zz:zz:zz:zz", "br0", "of:bad^id",
                    "of:%zz", "x:" + "0".repeat(2000)}[r.nextInt(13)]);
            case 6: return f.arrayNode();
            case 7: return f.objectNode();
            case 8: return f.numberNode(r.nextLong());
            case 9: return f.textNode(Long.toString(r.nextInt(100)));
            case 10: return f.numberNode(1e300);
            default: return f.numberNode(r.nextInt(10_000));
        }
    }

    private List<JsonNode> containers(JsonNode root) {
        List<JsonNode> out = new ArrayList<>();
        out.add(root);
        for (int i = 0; i < out.size(); i++) {
            Iterator<JsonNode> it = out.get(i).elements();
            while (it.hasNext()) {
                JsonNode c = it.next();
                if (c.isContainerNode()) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    /** Applies 1-3 random edits (replace, remove, add, duplicate) somewhere in the document. */
    private JsonNode mutate(JsonNode original, Random r) {
        JsonNode doc = original.deepCopy();
        int edits = 1 + r.nextInt(3);
        for (int e = 0; e < edits; e++) {
            List<JsonNode> cs = containers(doc);
            JsonNode target = cs.get(r.nextInt(cs.size()));
            if (target.isObject()) {
                ObjectNode o = (ObjectNode) target;
                List<String> names = new ArrayList<>();
                o.fieldNames().forEachRemaining(names::add);
                int op = r.nextInt(3);
                if (op == 0 && !names.isEmpty()) {
                    o.set(names.get(r.nextInt(names.size())), randomValue(r));
                } else if (op == 1 && !names.isEmpty()) {
                    o.remove(names.get(r.nextInt(names.size())));
                } else {
                    o.set(names.isEmpty() || r.nextBoolean() ? "extra" + r.nextInt(3)
                            : names.get(r.nextInt(names.size())), randomValue(r));
                }
            } else if (target.isArray()) {
                ArrayNode a = (ArrayNode) target;
                if (a.size() > 0 && r.nextBoolean()) {
                    a.add(a.get(r.nextInt(a.size())).deepCopy());
                } else if (a.size() > 0) {
                    a.set(r.nextInt(a.size()), randomValue(r));
                } else {
                    a.add(randomValue(r));
                }
            }
        }
        return doc;
    }

    private static String randomText(Random r) {
        String alphabet = "{}[]\":,0123456789.-eE truefalsnul\\abcdefx";
        StringBuilder sb = new StringBuilder();
        int n = r.nextInt(64);
        for (int i = 0; i < n; i++) {
            sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    @Test
    public void configParserAcceptsOnlyValidConfigs() throws IOException {
        JsonNode valid = resource("/org/planck/api/config/planck-config.json");
        assertTrue(PlanckConfigFuzzer.check(valid));
        Random r = new Random(20141118);
        int accepted = 0;
        for (int i = 0; i < CASES; i++) {
            if (PlanckConfigFuzzer.check(mutate(valid, r))) {
                accepted++;
            }
            PlanckConfigFuzzer.check(randomText(r));
        }
        // Both outcomes must occur, or the mutations are not exercising the parser.
        assertTrue("accepted " + accepted, accepted > CASES / 50 && accepted < CASES - CASES / 50);
    }

    @Test
    public void forwardingMapDecoderRoundTripsWhatItAccepts() throws IOException {
        JsonNode valid = resource("/org/planck/api/forwarding-map-example.json");
        assertTrue(ForwardingMapFuzzer.check(valid));
        Random r = new Random(20140817);
        int accepted = 0;
        for (int i = 0; i < CASES; i++) {
            if (ForwardingMapFuzzer.check(mutate(valid, r))) {
                accepted++;
            }
            ForwardingMapFuzzer.check(randomText(r));
        }
        assertTrue("accepted " + accepted, accepted > CASES / 50 && accepted < CASES - CASES / 50);
    }
}

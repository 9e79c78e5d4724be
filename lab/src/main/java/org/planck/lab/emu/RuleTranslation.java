package org.planck.lab.emu;

import org.onlab.packet.MacAddress;
import org.planck.api.FlowKey;
import org.planck.api.fabric.PlannedRule;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Translates the routing plan's rules into emulator rule operations, one-to-one, as the ONOS
 * app translates them into flow rules: same match fields, same rewrite, same output, same
 * priority ({@link org.planck.api.fabric.RuleKind#priority()}).
 */
public final class RuleTranslation {
    private RuleTranslation() {
    }

    /**
     * The emulator match of a planned rule.
     *
     * @param rule planned rule
     * @return match fields by contract name
     */
    public static Map<String, Object> match(PlannedRule rule) {
        Map<String, Object> m = new LinkedHashMap<>();
        rule.ethSrc().ifPresent(mac -> m.put("ethSrc", mac(mac)));
        m.put("ethDst", mac(rule.ethDst()));
        if (rule.flow().isPresent()) {
            FlowKey f = rule.flow().get();
            m.put("ipSrc", f.src().toString());
            m.put("ipDst", f.dst().toString());
            m.put("proto", f.proto());
            m.put("sport", f.srcPort());
            m.put("dport", f.dstPort());
        }
        return m;
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /**
     * A MAC address as the contract writes it: lower-case hex, colon-separated. ONOS's own
     * {@code MacAddress.toString()} formats each byte with {@code String.format}; a move's
     * rule op renders three of them on the loop's path.
     *
     * @param mac address
     * @return e.g. {@code 02:00:00:00:00:0a}
     */
    public static String mac(MacAddress mac) {
        byte[] b = mac.toBytes();
        char[] c = new char[b.length * 3 - 1];
        for (int i = 0; i < b.length; i++) {
            if (i > 0) {
                c[i * 3 - 1] = ':';
            }
            c[i * 3] = HEX[(b[i] >> 4) & 0xf];
            c[i * 3 + 1] = HEX[b[i] & 0xf];
        }
        return new String(c);
    }

    /**
     * The add operation installing a planned rule (replacing a rule with the same match).
     *
     * @param rule planned rule
     * @return operation
     */
    public static RuleOp add(PlannedRule rule) {
        return RuleOp.add(rule.device(), rule.priority(), match(rule),
                          rule.setEthDst().map(RuleTranslation::mac).orElse(null),
                          rule.outPort().toLong());
    }

    /**
     * The delete operation removing a planned rule.
     *
     * @param rule planned rule
     * @return operation
     */
    public static RuleOp delete(PlannedRule rule) {
        return RuleOp.delete(rule.device(), rule.priority(), match(rule));
    }

    /**
     * Add operations for many rules, in their order.
     *
     * @param rules planned rules
     * @return operations
     */
    public static List<RuleOp> addAll(Collection<PlannedRule> rules) {
        List<RuleOp> ops = new ArrayList<>(rules.size());
        for (PlannedRule r : rules) {
            ops.add(add(r));
        }
        return ops;
    }
}

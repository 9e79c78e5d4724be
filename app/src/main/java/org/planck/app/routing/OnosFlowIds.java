package org.planck.app.routing;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.TableId;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.EthCriterion;
import org.onosproject.net.flow.criteria.IPCriterion;

import java.text.DecimalFormatSymbols;
import java.util.Locale;

/**
 * The flow id ONOS 2.7's {@code DefaultFlowRule.Builder.fromApp(appId).build()} gives a rule,
 * bit for bit: the application id in the top 16 bits, below it a murmur3_32 of the device id,
 * each criterion's {@code toString()}, the priority and the table id. ONOS renders MAC and IPv4
 * addresses for that hash with {@code String.format}, one call per octet, which made building the
 * rule most of a TE move's cost (about 10 formats per per-flow rule). This renders the same
 * strings directly; criteria it has no fast rendering for, and locales whose digits are not
 * ASCII (where {@code %d} renders other digits), go through {@code toString()} as ONOS does.
 * Rules built with this id as their cookie are the rules {@code fromApp} builds: same id, same
 * application id.
 */
final class OnosFlowIds {
    private static final HashFunction MURMUR3_32 = Hashing.murmur3_32();
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** Zero digit of the last format locale seen, to skip a DecimalFormatSymbols lookup per rule. */
    private static volatile LocaleDigits lastLocale = new LocaleDigits(Locale.US, '0');

    private static final class LocaleDigits {
        final Locale locale;
        final char zero;

        LocaleDigits(Locale locale, char zero) {
            this.locale = locale;
            this.zero = zero;
        }
    }

    private OnosFlowIds() {
    }

    /**
     * The flow id (cookie) of a rule.
     *
     * @param appId    application the rule is from
     * @param device   switch
     * @param selector the rule's selector
     * @param priority the rule's priority
     * @param table    the rule's table
     * @return flow id as {@code fromApp} would compute it
     */
    static long flowId(ApplicationId appId, DeviceId device, TrafficSelector selector, int priority,
                       TableId table) {
        boolean asciiDigits = asciiDigits();
        // fromApp streams these into murmur3_32 one char at a time; the same bytes hashed at
        // once give the same hash (chars and the int little-endian, as Guava's hashers put them).
        StringBuilder sb = new StringBuilder(160);
        sb.append(device.toString());
        for (Criterion c : selector.criteria()) {
            if (!asciiDigits || !render(c, sb)) {
                sb.append(c.toString());
            }
        }
        String tableId = table.toString();
        int chars = sb.length();
        byte[] bytes = new byte[2 * (chars + tableId.length()) + Integer.BYTES];
        int at = 0;
        for (int i = 0; i < chars; i++) {
            at = putChar(bytes, at, sb.charAt(i));
        }
        bytes[at++] = (byte) priority;
        bytes[at++] = (byte) (priority >>> 8);
        bytes[at++] = (byte) (priority >>> 16);
        bytes[at++] = (byte) (priority >>> 24);
        for (int i = 0; i < tableId.length(); i++) {
            at = putChar(bytes, at, tableId.charAt(i));
        }
        return (((long) appId.id()) << 48) | (MURMUR3_32.hashBytes(bytes).asInt() & 0xffffffffL);
    }

    private static int putChar(byte[] bytes, int at, char c) {
        bytes[at] = (byte) c;
        bytes[at + 1] = (byte) (c >>> 8);
        return at + 2;
    }

    /** Whether String.format's %d renders ASCII digits in the default format locale. */
    private static boolean asciiDigits() {
        Locale l = Locale.getDefault(Locale.Category.FORMAT);
        LocaleDigits last = lastLocale;
        if (last.locale != l) {
            // java.util.Formatter takes '0' for Locale.US without asking, else the locale's digit.
            char zero = l == null || l.equals(Locale.US) ? '0' : DecimalFormatSymbols.getInstance(l).getZeroDigit();
            last = new LocaleDigits(l, zero);
            lastLocale = last;
        }
        return last.zero == '0';
    }

    /**
     * Appends c.toString() for the criteria with a fast rendering; false (nothing appended) for
     * the others.
     */
    private static boolean render(Criterion c, StringBuilder sb) {
        if (c instanceof EthCriterion) {
            EthCriterion e = (EthCriterion) c;
            sb.append(c.type().toString()).append(':');
            appendMac(sb, e.mac());
            if (e.mask() != null) {
                sb.append('/');
                appendMac(sb, e.mask());
            }
            return true;
        }
        if (c instanceof IPCriterion) {
            IpPrefix p = ((IPCriterion) c).ip();
            if (!p.isIp4()) {
                return false;
            }
            sb.append(c.type().toString()).append(':');
            int a = p.address().getIp4Address().toInt();
            sb.append(a >>> 24).append('.').append((a >>> 16) & 0xff).append('.')
                    .append((a >>> 8) & 0xff).append('.').append(a & 0xff)
                    .append('/').append(p.prefixLength());
            return true;
        }
        return false;
    }

    /** MacAddress.toString(): %02X per octet, ':' between. */
    private static void appendMac(StringBuilder sb, MacAddress mac) {
        long v = mac.toLong();
        for (int shift = 40; shift >= 0; shift -= 8) {
            int b = (int) (v >>> shift) & 0xff;
            sb.append(HEX[b >>> 4]).append(HEX[b & 0xf]);
            if (shift > 0) {
                sb.append(':');
            }
        }
    }
}

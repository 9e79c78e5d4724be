package org.planck.api.fabric;

import org.onlab.packet.MacAddress;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The block of locally administered unicast MACs used as shadow MACs: {@code 02:70:xx:xx:xx:xx},
 * i.e. a fixed 16-bit prefix and a 32-bit ordinal. Host MACs must lie outside this block.
 */
public final class ShadowMacSpace {
    /** The two leading octets of every shadow MAC (locally administered, unicast). */
    public static final long PREFIX = 0x0270L;
    /** Number of distinct shadow MACs. */
    public static final long SIZE = 1L << 32;

    private ShadowMacSpace() {
    }

    /**
     * The shadow MAC with the given ordinal.
     *
     * @param ordinal 0 to {@link #SIZE} - 1
     * @return the MAC
     */
    public static MacAddress mac(long ordinal) {
        checkArgument(ordinal >= 0 && ordinal < SIZE, "shadow MAC ordinal out of range: %s", ordinal);
        return MacAddress.valueOf((PREFIX << 32) | ordinal);
    }

    /**
     * Whether a MAC lies in the shadow block.
     *
     * @param mac any MAC
     * @return true for shadow MACs
     */
    public static boolean isShadow(MacAddress mac) {
        return (mac.toLong() >>> 32) == PREFIX;
    }

    /**
     * The ordinal of a shadow MAC.
     *
     * @param mac a shadow MAC
     * @return its ordinal
     * @throws IllegalArgumentException if the MAC is not a shadow MAC
     */
    public static long ordinal(MacAddress mac) {
        checkArgument(isShadow(mac), "not a shadow MAC: %s", mac);
        return mac.toLong() & 0xffffffffL;
    }
}

package org.planck.api.fabric;

import org.onlab.packet.MacAddress;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The default (ECMP-like) choice of a shadow path for a host pair: a fixed hash of
 * (source MAC, destination MAC). It depends on nothing else, so every controller instance and
 * the lab choose the same path, and Static mode is exactly this choice with TE off.
 */
public final class PathChoice {
    private PathChoice() {
    }

    /**
     * A well-mixed 64-bit hash of a host pair (SplitMix64 finaliser over both MACs).
     *
     * @param src source host MAC
     * @param dst destination host MAC
     * @return hash
     */
    public static long pairHash(MacAddress src, MacAddress dst) {
        long z = src.toLong() * 0x9E3779B97F4A7C15L + dst.toLong();
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * The position chosen among {@code count} candidate paths.
     *
     * @param src   source host MAC
     * @param dst   destination host MAC
     * @param count number of candidates, positive
     * @return position in [0, count)
     */
    public static int choose(MacAddress src, MacAddress dst, int count) {
        checkArgument(count > 0, "no candidate paths");
        return (int) Long.remainderUnsigned(pairHash(src, dst), count);
    }
}

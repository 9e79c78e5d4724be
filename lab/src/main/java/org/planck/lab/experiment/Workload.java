package org.planck.lab.experiment;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The traffic patterns of Hedera (NSDI'10) and Planck's TE evaluation, over n hosts numbered
 * 0..n-1 in fabric order (pod by pod, edge by edge). Every host sends; each host's flows are a
 * sequence: the next starts when the previous finishes.
 */
public enum Workload {
    /** stride(8): host x sends one flow to host (x + 8) mod n. */
    STRIDE8("stride8", "stride(8)"),
    /** shuffle: every host sends one flow to every other host, in its own random order, one at a time. */
    SHUFFLE("shuffle", "shuffle"),
    /** random: every host sends one flow to a host chosen uniformly among the others (destinations may repeat). */
    RANDOM("random", "random"),
    /** random bijection: a random permutation without fixed points; host x sends one flow to pi(x). */
    BIJECTION("bijection", "random bijection");

    private final String id;
    private final String label;

    Workload(String id, String label) {
        this.id = id;
        this.label = label;
    }

    /**
     * Short name for files and the command line.
     *
     * @return id
     */
    public String id() {
        return id;
    }

    /**
     * Name in reports.
     *
     * @return label
     */
    public String label() {
        return label;
    }

    /**
     * The workload with a given id.
     *
     * @param id stride8, shuffle, random or bijection
     * @return workload
     * @throws IllegalArgumentException for unknown ids
     */
    public static Workload byId(String id) {
        for (Workload w : values()) {
            if (w.id.equals(id)) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown workload '" + id + "' (stride8, shuffle, random, bijection)");
    }

    /**
     * The destinations each host sends to, in order.
     *
     * @param n    number of hosts, at least 2 (at least 9 for stride(8))
     * @param seed random seed (same seed, same pattern)
     * @return per source host, its destination sequence
     */
    public List<List<Integer>> destinations(int n, long seed) {
        checkArgument(n >= 2, "need at least 2 hosts");
        Random rnd = new Random(seed);
        List<List<Integer>> out = new ArrayList<>(n);
        switch (this) {
            case STRIDE8:
                checkArgument(n > 8, "stride(8) needs more than 8 hosts");
                for (int x = 0; x < n; x++) {
                    out.add(List.of((x + 8) % n));
                }
                return out;
            case SHUFFLE:
                for (int x = 0; x < n; x++) {
                    List<Integer> others = new ArrayList<>();
                    for (int y = 0; y < n; y++) {
                        if (y != x) {
                            others.add(y);
                        }
                    }
                    Collections.shuffle(others, rnd);
                    out.add(others);
                }
                return out;
            case RANDOM:
                for (int x = 0; x < n; x++) {
                    int y = rnd.nextInt(n - 1);
                    out.add(List.of(y >= x ? y + 1 : y));
                }
                return out;
            case BIJECTION:
                List<Integer> perm = derangement(n, rnd);
                for (int x = 0; x < n; x++) {
                    out.add(List.of(perm.get(x)));
                }
                return out;
            default:
                throw new IllegalStateException(name());
        }
    }

    /** A uniformly random permutation without fixed points (rejection sampling, ~e tries). */
    private static List<Integer> derangement(int n, Random rnd) {
        List<Integer> p = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            p.add(i);
        }
        while (true) {
            Collections.shuffle(p, rnd);
            boolean ok = true;
            for (int i = 0; i < n && ok; i++) {
                ok = p.get(i) != i;
            }
            if (ok) {
                return p;
            }
        }
    }
}

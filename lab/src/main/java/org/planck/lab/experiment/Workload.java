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
     * The destinations each host sends to, in order: one round.
     *
     * @param n    number of hosts, at least 2 (at least 9 for stride(8))
     * @param seed random seed (same seed, same pattern)
     * @return per source host, its destination sequence
     */
    public List<List<Integer>> destinations(int n, long seed) {
        return destinations(n, seed, 1);
    }

    /**
     * The destinations each host sends to, in order, over several rounds. stride(8), random and
     * random bijection give each host one flow per round, each round a fresh draw of the pattern
     * (stride(8) is the same every round), so one seed averages over {@code rounds} traffic
     * matrices rather than resting on one; the first round is the one-round pattern of the same
     * seed. shuffle is already a sequence of n - 1 flows per host and has one round whatever
     * {@code rounds} says.
     *
     * @param n      number of hosts, at least 2 (at least 9 for stride(8))
     * @param seed   random seed (same seed, same pattern)
     * @param rounds rounds, at least 1
     * @return per source host, its destination sequence
     */
    public List<List<Integer>> destinations(int n, long seed, int rounds) {
        checkArgument(n >= 2, "need at least 2 hosts");
        checkArgument(rounds >= 1, "rounds must be at least 1");
        Random rnd = new Random(seed);
        List<List<Integer>> out = new ArrayList<>(n);
        for (int x = 0; x < n; x++) {
            out.add(new ArrayList<>());
        }
        switch (this) {
            case STRIDE8:
                checkArgument(n > 8, "stride(8) needs more than 8 hosts");
                for (int r = 0; r < rounds; r++) {
                    for (int x = 0; x < n; x++) {
                        out.get(x).add((x + 8) % n);
                    }
                }
                break;
            case SHUFFLE:
                for (int x = 0; x < n; x++) {
                    List<Integer> others = out.get(x);
                    for (int y = 0; y < n; y++) {
                        if (y != x) {
                            others.add(y);
                        }
                    }
                    Collections.shuffle(others, rnd);
                }
                break;
            case RANDOM:
                for (int r = 0; r < rounds; r++) {
                    for (int x = 0; x < n; x++) {
                        int y = rnd.nextInt(n - 1);
                        out.get(x).add(y >= x ? y + 1 : y);
                    }
                }
                break;
            case BIJECTION:
                for (int r = 0; r < rounds; r++) {
                    List<Integer> perm = derangement(n, rnd);
                    for (int x = 0; x < n; x++) {
                        out.get(x).add(perm.get(x));
                    }
                }
                break;
            default:
                throw new IllegalStateException(name());
        }
        List<List<Integer>> frozen = new ArrayList<>(n);
        out.forEach(l -> frozen.add(List.copyOf(l)));
        return frozen;
    }

    /**
     * Flows per run of this workload over {@code hosts} hosts.
     *
     * @param hosts  hosts
     * @param rounds rounds (see {@link #destinations(int, long, int)})
     * @return flows
     */
    public int flowCount(int hosts, int rounds) {
        return this == SHUFFLE ? hosts * (hosts - 1) : hosts * rounds;
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

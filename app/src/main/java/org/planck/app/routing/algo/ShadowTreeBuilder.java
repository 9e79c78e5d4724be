package org.planck.app.routing.algo;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.ShadowTree;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Builds diverse destination-rooted trees over one {@link FabricGraph}.
 *
 * <p>Tree t toward host H is a shortest-path tree rooted at H's edge switch under link weights
 * {@code 1 + penalty * (number of H's earlier trees using the link)}, so later trees avoid the
 * links of earlier ones where that costs few extra hops. Among equal-cost choices the tree is
 * grown source by source, farthest first: each source joins the partial tree at the nearest
 * member reachable along equal-cost links, so sources in one pod share an aggregation switch and
 * sources in all pods share one core (in a fat tree, tree t is the tree through one core, and
 * intra-pod sources use that core's aggregation switch). Remaining ties are broken by a hash of
 * (H, attempt, switch): deterministic, and different destinations spread over different cores.
 * An attempt identical to an earlier tree is discarded (its links are still penalised); after
 * {@code 2 * wanted + 2} attempts the builder returns what it has.</p>
 *
 * <p>Not thread-safe: it keeps scratch arrays; use one builder per thread.</p>
 */
final class ShadowTreeBuilder {
    private static final int UNREACHED = Integer.MAX_VALUE;
    private static final int MAX_NODES = 1 << 20;
    private static final int MAX_ORDERED_DIST = (1 << 23) - 1;

    private final FabricGraph graph;
    private final int penalty;
    private final int nodes;
    private final FabricLink[] links;
    private final int[] linkSrc;
    private final int[] linkDst;
    private final int[][] egressIds;
    private final int[][] ingressIds;
    private final Map<ConnectPoint, Integer> linkIdByEgress;
    private final boolean[] hasHosts;
    private final Map<IntArrayKey, Set<DeviceId>> sourceSets = new HashMap<>();

    // Scratch state, reused across attempts.
    private final int[] uses;
    private final int[] dist;
    private final boolean[] onShortest;
    private final int[] bfsQueue;
    private final int[] bfsVia;
    private final int[] bfsStamp;
    private int stamp;
    private final long[] heap;
    private int heapSize;

    ShadowTreeBuilder(FabricGraph graph, int penalty) {
        checkArgument(penalty >= 0, "penalty must be non-negative: %s", penalty);
        this.graph = graph;
        this.penalty = penalty;
        this.nodes = graph.switches().size();
        checkArgument(nodes < MAX_NODES, "too many switches: %s", nodes);
        List<FabricLink> all = graph.links();
        this.links = all.toArray(new FabricLink[0]);
        this.linkSrc = new int[links.length];
        this.linkDst = new int[links.length];
        ImmutableMap.Builder<ConnectPoint, Integer> byEgress = ImmutableMap.builder();
        List<List<Integer>> out = new ArrayList<>();
        List<List<Integer>> in = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            out.add(new ArrayList<>());
            in.add(new ArrayList<>());
        }
        for (int l = 0; l < links.length; l++) {
            linkSrc[l] = graph.index(links[l].srcDevice());
            linkDst[l] = graph.index(links[l].dstDevice());
            out.get(linkSrc[l]).add(l);
            in.get(linkDst[l]).add(l);
            byEgress.put(links[l].src(), l);
        }
        this.linkIdByEgress = byEgress.build();
        this.egressIds = new int[nodes][];
        this.ingressIds = new int[nodes][];
        this.hasHosts = new boolean[nodes];
        for (int i = 0; i < nodes; i++) {
            egressIds[i] = out.get(i).stream().mapToInt(Integer::intValue).toArray();
            ingressIds[i] = in.get(i).stream().mapToInt(Integer::intValue).toArray();
            hasHosts[i] = !graph.hostsAt(graph.switches().get(i)).isEmpty();
        }
        this.uses = new int[links.length];
        this.dist = new int[nodes];
        this.onShortest = new boolean[links.length];
        this.bfsQueue = new int[nodes];
        this.bfsVia = new int[nodes];
        this.bfsStamp = new int[nodes];
        this.heap = new long[Math.max(16, links.length + nodes)];
    }

    /**
     * One tree as plain arrays: for every switch index the id of its next link (or -1), and the
     * source switches it carries.
     */
    static final class TreeShape {
        final int[] next;
        final int[] sources;

        TreeShape(int[] next, int[] sources) {
            this.next = next;
            this.sources = sources;
        }
    }

    /**
     * Builds up to {@code wanted} new trees toward a host, distinct from each other and from the
     * kept trees, whose links count as already used.
     *
     * @param host   destination host
     * @param wanted number of new trees
     * @param kept   trees toward the host that stay as they are
     * @return new trees, at most {@code wanted}
     */
    List<TreeShape> build(FabricHost host, int wanted, List<ShadowTree> kept) {
        Arrays.fill(uses, 0);
        List<int[]> seen = new ArrayList<>();
        for (ShadowTree t : kept) {
            int[] next = new int[nodes];
            Arrays.fill(next, -1);
            for (FabricLink l : t.nextLinks().values()) {
                Integer id = linkIdByEgress.get(l.src());
                if (id != null) {
                    next[linkSrc[id]] = id;
                    uses[id]++;
                }
            }
            seen.add(next);
        }
        int root = graph.index(host.edge());
        List<TreeShape> built = new ArrayList<>(wanted);
        int attempts = 2 * wanted + 2;
        for (int attempt = 0; attempt < attempts && built.size() < wanted; attempt++) {
            long seed = mix(host.mac().toLong() * 0x9E3779B97F4A7C15L + attempt + kept.size() * 7919L);
            TreeShape shape = attempt(root, seed);
            boolean duplicate = false;
            for (int[] s : seen) {
                if (Arrays.equals(s, shape.next)) {
                    duplicate = true;
                    break;
                }
            }
            for (int id : shape.next) {
                if (id >= 0) {
                    uses[id]++;
                }
            }
            if (!duplicate && shape.sources.length > 0) {
                seen.add(shape.next);
                built.add(shape);
            }
        }
        return built;
    }

    /**
     * Converts a shape to the next-link map of a {@link ShadowTree}.
     *
     * @param shape tree shape
     * @return switch to next link
     */
    Map<DeviceId, FabricLink> nextLinks(TreeShape shape) {
        ImmutableMap.Builder<DeviceId, FabricLink> m = ImmutableMap.builder();
        for (int v = 0; v < nodes; v++) {
            if (shape.next[v] >= 0) {
                m.put(graph.switches().get(v), links[shape.next[v]]);
            }
        }
        return m.build();
    }

    /**
     * The source switches of a shape.
     *
     * @param shape tree shape
     * @return source device ids
     */
    Set<DeviceId> sources(TreeShape shape) {
        // Trees toward hosts of one edge usually carry the same sources: share one set.
        IntArrayKey key = new IntArrayKey(shape.sources);
        Set<DeviceId> set = sourceSets.get(key);
        if (set == null) {
            ImmutableSet.Builder<DeviceId> b = ImmutableSet.builder();
            for (int v : shape.sources) {
                b.add(graph.switches().get(v));
            }
            set = b.build();
            sourceSets.put(key, set);
        }
        return set;
    }

    /** An int[] with value equality. */
    private static final class IntArrayKey {
        final int[] values;
        final int hash;

        IntArrayKey(int[] values) {
            this.values = values;
            this.hash = (int) mix(Arrays.hashCode(values));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof IntArrayKey && Arrays.equals(values, ((IntArrayKey) o).values);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /**
     * Source switches (switches with hosts other than the root) that can reach the root at all.
     *
     * @param host destination host
     * @return reachable sources
     */
    List<DeviceId> reachableSources(FabricHost host) {
        Arrays.fill(uses, 0);
        shortestDistances(graph.index(host.edge()));
        List<DeviceId> s = new ArrayList<>();
        for (int v = 0; v < nodes; v++) {
            if (hasHosts[v] && dist[v] != UNREACHED && dist[v] > 0) {
                s.add(graph.switches().get(v));
            }
        }
        return s;
    }

    private TreeShape attempt(int root, long seed) {
        shortestDistances(root);
        for (int l = 0; l < links.length; l++) {
            int u = linkDst[l];
            onShortest[l] = dist[u] != UNREACHED && dist[linkSrc[l]] == dist[u] + weight(l);
        }
        int count = 0;
        for (int v = 0; v < nodes; v++) {
            if (hasHosts[v] && v != root && dist[v] != UNREACHED) {
                count++;
            }
        }
        long[] order = new long[count];
        int[] sources = new int[count];
        int c = 0;
        for (int v = 0; v < nodes; v++) {
            if (hasHosts[v] && v != root && dist[v] != UNREACHED) {
                // Farthest first, then by hashed rank; the low bits carry the switch index.
                long rank = (mix(seed ^ v) >>> 44) & 0xFFFFFL;
                order[c++] = ((long) (MAX_ORDERED_DIST - Math.min(dist[v], MAX_ORDERED_DIST)) << 40) | (rank << 20) | v;
            }
        }
        Arrays.sort(order);
        int[] next = new int[nodes];
        Arrays.fill(next, -1);
        boolean[] member = new boolean[nodes];
        member[root] = true;
        for (int i = 0; i < count; i++) {
            int s = (int) (order[i] & 0xFFFFF);
            sources[i] = s;
            if (!member[s]) {
                join(s, member, next, seed);
            }
        }
        Arrays.sort(sources);
        return new TreeShape(next, sources);
    }

    /** Joins a source to the partial tree at the nearest member along equal-cost links. */
    private void join(int s, boolean[] member, int[] next, long seed) {
        stamp++;
        int head = 0;
        int tail = 0;
        bfsQueue[tail++] = s;
        bfsStamp[s] = stamp;
        bfsVia[s] = -1;
        while (head < tail) {
            int v = bfsQueue[head++];
            int[] out = egressIds[v];
            int candidates = 0;
            for (int l : out) {
                if (onShortestPath(l)) {
                    candidates++;
                }
            }
            if (candidates == 0) {
                continue;
            }
            int skip = (int) ((mix(seed + 31L * v) >>> 1) % candidates);
            for (int pass = 0; pass < 2; pass++) {
                int seenCandidates = 0;
                for (int l : out) {
                    if (!onShortestPath(l)) {
                        continue;
                    }
                    boolean inThisPass = pass == 0 ? seenCandidates >= skip : seenCandidates < skip;
                    seenCandidates++;
                    if (!inThisPass) {
                        continue;
                    }
                    int u = linkDst[l];
                    if (bfsStamp[u] == stamp) {
                        continue;
                    }
                    bfsStamp[u] = stamp;
                    bfsVia[u] = l;
                    if (member[u]) {
                        // Attach the route s -> ... -> u to the tree.
                        int at = u;
                        while (bfsVia[at] >= 0) {
                            int via = bfsVia[at];
                            int from = linkSrc[via];
                            next[from] = via;
                            member[from] = true;
                            at = from;
                        }
                        return;
                    }
                    bfsQueue[tail++] = u;
                }
            }
        }
        throw new IllegalStateException("source switch " + s + " has finite distance but no route");
    }

    private boolean onShortestPath(int l) {
        return onShortest[l];
    }

    private int weight(int l) {
        return 1 + penalty * uses[l];
    }

    /** Dijkstra toward the root over incoming links. */
    private void shortestDistances(int root) {
        Arrays.fill(dist, UNREACHED);
        dist[root] = 0;
        heapSize = 0;
        push(root);
        while (heapSize > 0) {
            long top = pop();
            int u = (int) (top & 0xFFFFFFFFL);
            int du = (int) (top >>> 32);
            if (du != dist[u]) {
                continue;
            }
            for (int l : ingressIds[u]) {
                int v = linkSrc[l];
                int nd = du + weight(l);
                if (nd < dist[v]) {
                    dist[v] = nd;
                    push(v);
                }
            }
        }
    }

    private void push(int v) {
        long key = ((long) dist[v] << 32) | v;
        int i = heapSize++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (heap[parent] <= key) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = key;
    }

    private long pop() {
        long top = heap[0];
        long last = heap[--heapSize];
        int i = 0;
        int half = heapSize >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            if (child + 1 < heapSize && heap[child + 1] < heap[child]) {
                child++;
            }
            if (heap[child] >= last) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        if (heapSize > 0) {
            heap[i] = last;
        }
        return top;
    }

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

package org.planck.app.admission.algo;

import com.google.common.collect.ImmutableMap;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.planck.api.admission.GuaranteeHop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Admission control over a network of shared-service switches (Loko).
 *
 * <p>Every switch is one FIFO server with the rate-latency curve of its {@link SwitchModel},
 * shared by all traffic through it whatever the ports (scope {@link Scope#SHARED_SWITCH}), or one
 * such server serving its inputs in an unknown order, whose delay bound is then its longest busy
 * period (scope {@link Scope#SHARED_SWITCH_ANY_ORDER}); the
 * state-of-the-art alternative that gives every output port its own such server is kept as
 * {@link Scope#PER_PORT} to show what it gets wrong. A server's delay bound is the horizontal
 * deviation T + (sum of bursts)/R of its aggregate arrival curve; a flow's burst at a hop is its
 * ingress burst plus rate times the delay bound of the hops before (output-burst propagation);
 * each hop also adds the transmission of one MTU on its output port (non-preemption). A flow's
 * bound is the sum over its hops.</p>
 *
 * <p>Bursts at a switch depend on delays upstream, which depend on bursts there: with flows in
 * both directions through the same switches the equations are cyclic. They are solved by
 * monotone iteration from zero delays in whole nanoseconds rounded up, which stops at a
 * post-fixed point d >= F(d): as in the time-stopping method (Le Boudec and Thiran, 6.4.1) that
 * is a bound. The iterates never exceed the least fixed point, so a deadline exceeded on the way
 * is exceeded by the bound too, and the check stops there.</p>
 *
 * <p>Arithmetic is exact in long integers (bursts scaled by 1e9 so that rate x ns stays
 * integral); divisions round up; an overflow rejects the flow rather than wrap. Not thread-safe.</p>
 */
public final class AdmissionPlanner {
    /** Which traffic a server's bound depends on. */
    public enum Scope {
        /** Loko: all traffic through the switch shares one FIFO service. */
        SHARED_SWITCH,
        /**
         * All traffic through the switch shares one service whose order between inputs is unknown
         * (OVS's userspace datapath polls its input ports round-robin, a batch per port): a packet
         * waits at most the longest busy period, (B + R T)/(R - rho), whatever the order.
         */
        SHARED_SWITCH_ANY_ORDER,
        /** Every output port an independent server with the switch's curve (unsafe on shared CPUs). */
        PER_PORT;

        /** Whether all ports of a switch share one server. */
        public boolean perSwitch() {
            return this != PER_PORT;
        }
    }

    /** Packets of unguaranteed traffic are assumed no shorter than this (Ethernet minimum). */
    public static final int BEST_EFFORT_MIN_PACKET = 64;
    private static final long NS = 1_000_000_000L;
    private static final int MAX_ITERATIONS = 10_000;

    private final Function<DeviceId, SwitchModel> models;
    private final Scope scope;
    private final int mtuBytes;
    private final Map<String, Entry> admitted = new LinkedHashMap<>();
    private final Map<Object, Integer> serverIds = new HashMap<>();
    private final List<Server> servers = new ArrayList<>();
    /** Reserved token rate per server (for the least-loaded-first order), bytes/s. */
    private double[] reserved = new double[16];
    /**
     * Per-server delays at the fixed point of the admitted set, or null after a release. Adding
     * a flow only raises delays, so the next analysis starts here rather than from zero: the old
     * fixed point is below the new least fixed point, which keeps the iteration sound.
     */
    private long[] warm = new long[0];

    /**
     * A planner with no flows admitted.
     *
     * @param models   switch model of each switch (must answer for every switch on a path)
     * @param scope    shared service per switch (Loko) or independent ports
     * @param mtuBytes largest packet any traffic may send, > 0 (non-preemption delay per hop)
     */
    public AdmissionPlanner(Function<DeviceId, SwitchModel> models, Scope scope, int mtuBytes) {
        this.models = checkNotNull(models, "models");
        this.scope = checkNotNull(scope, "scope");
        checkArgument(mtuBytes > 0, "mtu must be > 0");
        this.mtuBytes = mtuBytes;
    }

    public Scope scope() {
        return scope;
    }

    public int mtuBytes() {
        return mtuBytes;
    }

    /**
     * The part of a bound no admission decision changes: per hop the switch latency T and one
     * MTU's transmission. A deadline below it can never be met on that path.
     *
     * @param path the path
     * @return ns
     */
    public long fixedLatencyNanos(GuaranteePath path) {
        long sum = 0;
        for (GuaranteeHop h : path.hops()) {
            sum += models.apply(h.device()).serviceLatencyNanos() + transmissionNanos(h);
        }
        return sum;
    }

    private long transmissionNanos(GuaranteeHop h) {
        return ceilDiv((long) mtuBytes * 8 * NS, h.outCapacityBps());
    }

    /**
     * Picks the first candidate path (least loaded first) on which the flow and every admitted
     * flow meet their deadlines and no switch overflows. Changes nothing.
     *
     * @param demand     the new flow
     * @param candidates its possible paths
     * @return the verdict
     */
    public AdmissionVerdict evaluate(FlowDemand demand, List<GuaranteePath> candidates) {
        checkNotNull(demand, "demand");
        if (candidates.isEmpty()) {
            return AdmissionVerdict.reject("no path between the hosts");
        }
        if (demand.maxPacketBytes() > mtuBytes) {
            return AdmissionVerdict.reject("max packet " + demand.maxPacketBytes() + " B exceeds the MTU "
                    + mtuBytes + " B");
        }
        List<Entry> base = new ArrayList<>(admitted.values());
        List<GuaranteePath> order = new ArrayList<>(candidates);
        order.sort(Comparator.comparingDouble(this::reservedLoad));
        long[] start = startingDelays();
        String first = null;
        for (GuaranteePath p : order) {
            Admitted a = new Admitted(demand, p);
            List<Entry> all = new ArrayList<>(base);
            all.add(entry(null, a));
            Analysis r = analyse(all, List.of(), start);
            if (r.rejection == null) {
                Map<String, Long> bounds = new LinkedHashMap<>();
                for (int i = 0; i < base.size(); i++) {
                    bounds.put(base.get(i).id, r.bounds[i]);
                }
                return AdmissionVerdict.admit(p, r.bounds[base.size()], bounds);
            }
            if (first == null) {
                first = "path " + p.index() + ": " + r.rejection;
            }
        }
        return AdmissionVerdict.reject(order.size() == 1 ? first
                : first + " (and " + (order.size() - 1) + " other paths rejected)");
    }

    /**
     * Records an admitted flow (after {@link #evaluate} chose its path).
     *
     * @param id     guarantee id
     * @param demand the flow
     * @param path   its path
     */
    public void admit(String id, FlowDemand demand, GuaranteePath path) {
        checkNotNull(id, "id");
        Entry e = entry(id, new Admitted(checkNotNull(demand, "demand"), checkNotNull(path, "path")));
        Entry old = admitted.put(id, e);
        if (old != null) {
            unreserve(old);
            warm = null;
        }
        for (int s : e.servers) {
            if (s >= reserved.length) {
                reserved = Arrays.copyOf(reserved, Math.max(s + 1, reserved.length * 2));
            }
            reserved[s] += demand.rateBytesPerSec();
        }
        if (warm != null) {
            Analysis r = analyse(new ArrayList<>(admitted.values()), List.of(), startingDelays());
            warm = r.rejection == null ? r.delays : null;
        }
    }

    private void unreserve(Entry e) {
        for (int s : e.servers) {
            reserved[s] -= e.a.demand.rateBytesPerSec();
        }
    }

    /** The warm-start delays (zeros if unknown), one per server. */
    private long[] startingDelays() {
        long[] d = new long[servers.size()];
        if (warm != null) {
            System.arraycopy(warm, 0, d, 0, Math.min(warm.length, d.length));
        }
        return d;
    }

    /**
     * Forgets an admitted flow.
     *
     * @param id guarantee id
     * @return true if it was admitted
     */
    public boolean release(String id) {
        Entry e = admitted.remove(id);
        if (e == null) {
            return false;
        }
        unreserve(e);
        warm = null; // delays may fall: a fixed point from above is not a bound
        return true;
    }

    public int size() {
        return admitted.size();
    }

    /**
     * Current bound of every admitted flow.
     *
     * @return id to ns; empty if the admitted set is (no longer) schedulable, e.g. after a model change
     */
    public Map<String, Long> bounds() {
        List<Entry> all = new ArrayList<>(admitted.values());
        Analysis r = analyse(all, List.of(), startingDelays());
        if (r.rejection != null) {
            return ImmutableMap.of();
        }
        warm = r.delays;
        ImmutableMap.Builder<String, Long> b = ImmutableMap.builder();
        for (int i = 0; i < all.size(); i++) {
            b.put(all.get(i).id, r.bounds[i]);
        }
        return b.build();
    }

    /**
     * Whether unguaranteed traffic of the given rate and burst may be added on these hops (a TE
     * move onto them) without any admitted flow missing its deadline.
     *
     * @param hops            hops the traffic would newly cross
     * @param rateBytesPerSec its rate
     * @param burstBytes      its burst
     * @return empty if allowed, else why not
     */
    public Optional<String> checkExtraTraffic(List<GuaranteeHop> hops, long rateBytesPerSec, long burstBytes) {
        checkArgument(rateBytesPerSec >= 0 && burstBytes >= 0, "rate and burst must be >= 0");
        if (admitted.isEmpty() || hops.isEmpty()) {
            return Optional.empty();
        }
        List<long[]> extra = new ArrayList<>();
        for (GuaranteeHop h : hops) {
            int s = server(h);
            long o = servers.get(s).model.perPacketOverheadBytes();
            try {
                extra.add(new long[]{s, work(rateBytesPerSec, BEST_EFFORT_MIN_PACKET, o),
                        work(Math.multiplyExact(burstBytes, NS), BEST_EFFORT_MIN_PACKET, o)});
            } catch (ArithmeticException e) {
                return Optional.of("traffic too large to bound");
            }
        }
        Analysis r = analyse(new ArrayList<>(admitted.values()), extra, startingDelays());
        return Optional.ofNullable(r.rejection);
    }

    /** Sum of reserved fractions along the path: hops every candidate shares weigh alike. */
    private double reservedLoad(GuaranteePath p) {
        double sum = 0;
        for (GuaranteeHop h : p.hops()) {
            int s = server(h);
            sum += (s < reserved.length ? reserved[s] : 0) / servers.get(s).model.serviceRateBytesPerSec();
        }
        return sum;
    }

    private Entry entry(String id, Admitted a) {
        List<GuaranteeHop> hops = a.path.hops();
        int[] srv = new int[hops.size()];
        long[] fixed = new long[hops.size()];
        for (int i = 0; i < srv.length; i++) {
            srv[i] = server(hops.get(i));
            fixed[i] = transmissionNanos(hops.get(i));
        }
        return new Entry(id, a, srv, fixed);
    }

    private int server(GuaranteeHop h) {
        Object key = scope.perSwitch() ? h.device() : new ConnectPoint(h.device(), h.outPort());
        Integer id = serverIds.get(key);
        if (id == null) {
            id = servers.size();
            SwitchModel m = checkNotNull(models.apply(h.device()), "no switch model for %s", h.device());
            servers.add(new Server(key.toString(), m));
            serverIds.put(key, id);
        }
        return id;
    }

    /** Work bytes for x bytes of packets no shorter than m on a switch with per-packet cost o. */
    private static long work(long x, long m, long o) {
        // x * (m + o) / m, rounded up, without forming x * (m + o).
        long q = x / m;
        long rem = x % m;
        return Math.addExact(Math.multiplyExact(q, m + o), ceilDiv(rem * (m + o), m));
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }

    private Analysis analyse(List<Entry> flows, List<long[]> extra, long[] start) {
        try {
            return solve(flows, extra, start);
        } catch (ArithmeticException e) {
            return new Analysis(null, "bound exceeds the representable range (" + e.getMessage() + ")");
        }
    }

    /**
     * Solves the burst/delay equations by monotone iteration from {@code start}, which must lie
     * below the least fixed point (zeros, or the fixed point of a subset of these flows).
     */
    private Analysis solve(List<Entry> flows, List<long[]> extra, long[] start) {
        int n = servers.size();
        long[] rate = new long[n];
        long[] burst0 = new long[n];
        boolean[] used = new boolean[n];
        for (int s = 0; s < n; s++) {
            SwitchModel m = servers.get(s).model;
            rate[s] = m.bestEffortRateBytesPerSec();
            burst0[s] = Math.multiplyExact(m.bestEffortBurstBytes(), NS);
        }
        for (long[] x : extra) {
            int s = (int) x[0];
            rate[s] = Math.addExact(rate[s], x[1]);
            burst0[s] = Math.addExact(burst0[s], x[2]);
        }
        for (Entry f : flows) {
            for (int s : f.servers) {
                used[s] = true;
                rate[s] = Math.addExact(rate[s], work(f.a.demand.rateBytesPerSec(), f.a.demand.minPacketBytes(),
                        servers.get(s).model.perPacketOverheadBytes()));
            }
        }
        for (int s = 0; s < n; s++) {
            long cap = servers.get(s).model.serviceRateBytesPerSec();
            boolean over = scope == Scope.SHARED_SWITCH_ANY_ORDER ? rate[s] >= cap : rate[s] > cap;
            if (used[s] && over) {
                return new Analysis(null, "switch " + servers.get(s).name + " over capacity: arrival rate "
                        + rate[s] + " B/s > service rate " + cap + " B/s");
            }
        }
        long[] delay = Arrays.copyOf(start, n);
        long[] work = new long[n];
        long[] bounds = new long[flows.size()];
        for (int iter = 0; iter < MAX_ITERATIONS; iter++) {
            System.arraycopy(burst0, 0, work, 0, n);
            for (Entry f : flows) {
                long r = f.a.demand.rateBytesPerSec();
                long b = Math.multiplyExact(f.a.demand.burstBytes(), NS);
                long m = f.a.demand.minPacketBytes();
                long upstream = 0;
                for (int h = 0; h < f.servers.length; h++) {
                    int s = f.servers[h];
                    long atHop = Math.addExact(b, Math.multiplyExact(r, upstream));
                    work[s] = Math.addExact(work[s], work(atHop, m, servers.get(s).model.perPacketOverheadBytes()));
                    upstream = Math.addExact(upstream, delay[s] + f.fixed[h]);
                }
            }
            boolean changed = false;
            for (int s = 0; s < n; s++) {
                if (!used[s]) {
                    continue;
                }
                SwitchModel m = servers.get(s).model;
                long d = scope == Scope.SHARED_SWITCH_ANY_ORDER
                        // Longest busy period of burst B + rate rho against R (t - T), any order:
                        // T + (B + rho T) / (R - rho); rho < R was checked above.
                        ? Math.addExact(m.serviceLatencyNanos(), ceilDiv(Math.addExact(work[s],
                                Math.multiplyExact(rate[s], m.serviceLatencyNanos())),
                                m.serviceRateBytesPerSec() - rate[s]))
                        // FIFO: horizontal deviation T + B / R.
                        : Math.addExact(m.serviceLatencyNanos(), ceilDiv(work[s], m.serviceRateBytesPerSec()));
                if (d != delay[s]) {
                    changed = true;
                    delay[s] = d;
                }
            }
            for (int i = 0; i < flows.size(); i++) {
                Entry f = flows.get(i);
                long sum = 0;
                int worst = 0;
                for (int h = 0; h < f.servers.length; h++) {
                    sum = Math.addExact(sum, delay[f.servers[h]] + f.fixed[h]);
                    if (delay[f.servers[h]] > delay[f.servers[worst]]) {
                        worst = h;
                    }
                }
                if (sum > f.a.demand.deadlineNanos()) {
                    String who = f.id == null ? "the new flow" : "admitted flow " + f.id;
                    return new Analysis(null, who + " would miss its deadline: bound " + sum + " ns > "
                            + f.a.demand.deadlineNanos() + " ns (largest hop " + servers.get(f.servers[worst]).name
                            + ", delay bound " + delay[f.servers[worst]] + " ns)");
                }
                bounds[i] = sum;
            }
            if (!changed) {
                for (int s = 0; s < n; s++) {
                    SwitchModel m = servers.get(s).model;
                    // Vertical deviation: sum of bursts + rate * T, in bytes (rounded up).
                    long backlog = ceilDiv(Math.addExact(work[s],
                            Math.multiplyExact(rate[s], m.serviceLatencyNanos())), NS);
                    if (used[s] && backlog > m.maxBacklogBytes()) {
                        return new Analysis(null, "switch " + servers.get(s).name + " backlog bound " + backlog
                                + " B > buffer " + m.maxBacklogBytes() + " B");
                    }
                }
                return new Analysis(bounds, delay, null);
            }
        }
        return new Analysis(null, "delay bounds did not converge in " + MAX_ITERATIONS + " iterations");
    }

    private static final class Admitted {
        final FlowDemand demand;
        final GuaranteePath path;

        Admitted(FlowDemand demand, GuaranteePath path) {
            this.demand = demand;
            this.path = path;
        }
    }

    private static final class Entry {
        final String id;
        final Admitted a;
        final int[] servers;
        final long[] fixed;

        Entry(String id, Admitted a, int[] servers, long[] fixed) {
            this.id = id;
            this.a = a;
            this.servers = servers;
            this.fixed = fixed;
        }
    }

    private static final class Server {
        final String name;
        final SwitchModel model;

        Server(String name, SwitchModel model) {
            this.name = name;
            this.model = model;
        }
    }

    private static final class Analysis {
        final long[] bounds;
        final long[] delays;
        final String rejection;

        Analysis(long[] bounds, long[] delays, String rejection) {
            this.bounds = bounds;
            this.delays = delays;
            this.rejection = rejection;
        }

        Analysis(Object none, String rejection) {
            this(null, null, rejection);
        }
    }
}

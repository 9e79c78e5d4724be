package org.planck.lab.ovs;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The hosts of an OVS lab fabric: one {@code tcp-agent.py} per host network namespace, which sends
 * flows of real Linux TCP on command and answers when each is complete. Thread-safe.
 */
public final class HostAgents implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HostAgents.class);
    /** Flows kept per fabric (a run has at most 255; runs do not share ids, see {@link #forget()}). */
    static final int MAX_FLOWS = 4096;

    /** A flow's state as the sender reported it. */
    public static final class Flow {
        final long id;
        final String src;
        final String dst;
        final long bytes;
        final long requestedUs;
        long startUs;
        long finishUs;
        long retransmits;
        long timeouts;
        boolean done;
        String failure;

        Flow(long id, String src, String dst, long bytes, long requestedUs) {
            this.id = id;
            this.src = src;
            this.dst = dst;
            this.bytes = bytes;
            this.requestedUs = requestedUs;
        }
    }

    private final OvsLabFabric fabric;
    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Map<String, Writer> inputs = new LinkedHashMap<>();
    private final Map<Long, Flow> flows = new LinkedHashMap<>();
    private final List<Thread> readers = new ArrayList<>();

    /**
     * Starts an agent in every host's namespace and waits until each listens.
     *
     * @param fabric fabric
     * @param agent  path of tcp-agent.py
     * @throws IOException if an agent does not start
     */
    public HostAgents(OvsLabFabric fabric, Path agent) throws IOException {
        this.fabric = fabric;
        try {
            // All agents start at once (a python start-up is slow on a loaded machine), then each is awaited.
            for (OvsLabFabric.Host h : fabric.hosts()) {
                Process p = new ProcessBuilder("ip", "netns", "exec", h.netns(), "python3", agent.toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                processes.put(h.mac().toLowerCase(), p);
                inputs.put(h.mac().toLowerCase(), new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8));
            }
            for (OvsLabFabric.Host h : fabric.hosts()) {
                Process p = processes.get(h.mac().toLowerCase());
                BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                String first = in.readLine();
                if (!"ready".equals(first)) {
                    throw new IOException("tcp agent in " + h.netns() + " did not start (said " + first + ")");
                }
                Thread t = new Thread(() -> read(h, in), "tcp-agent-" + h.netns());
                t.setDaemon(true);
                t.start();
                readers.add(t);
            }
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    private void read(OvsLabFabric.Host h, BufferedReader in) {
        try {
            String line;
            while ((line = in.readLine()) != null) {
                String[] w = line.split(" ", 3);
                if (w.length < 2) {
                    continue;
                }
                long id = Long.parseLong(w[1]);
                synchronized (this) {
                    Flow f = flows.get(id);
                    if (f == null) {
                        log.warn("{}: {}", h.netns(), line);
                        continue;
                    }
                    if (w[0].equals("done")) {
                        String[] v = line.split(" ");
                        f.startUs = Long.parseLong(v[2]);
                        f.finishUs = Long.parseLong(v[3]);
                        f.retransmits = Long.parseLong(v[5]);
                        f.timeouts = Long.parseLong(v[6]);
                        f.done = true;
                    } else {
                        f.failure = w.length > 2 ? w[2] : "failed";
                        log.warn("flow {} from {} failed: {}", id, h.netns(), f.failure);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            log.warn("{}: agent output unreadable: {}", h.netns(), e.getMessage());
        }
    }

    /**
     * Starts a flow: its source host connects to the destination's port {@code dport} from
     * {@code sport} and sends {@code bytes}.
     *
     * @param id    flow id, unique among this fabric's flows
     * @param src   source MAC
     * @param dst   destination MAC
     * @param bytes size
     * @param sport source port
     * @param dport destination port
     * @throws IllegalArgumentException if a host is unknown or the id was used
     * @throws IOException              if the agent cannot be told
     */
    public synchronized void start(long id, String src, String dst, long bytes, int sport, int dport)
            throws IOException {
        OvsLabFabric.Host s = fabric.host(src);
        OvsLabFabric.Host d = fabric.host(dst);
        checkArgument(s != null && d != null && s != d, "flow %s: unknown or equal hosts %s -> %s", id, src, dst);
        checkArgument(!flows.containsKey(id), "flow %s already started", id);
        checkArgument(flows.size() < MAX_FLOWS, "more than %s flows", MAX_FLOWS);
        checkArgument(bytes > 0 && sport > 0 && sport < 65536 && dport == 5001, "flow %s: bytes, ports", id);
        flows.put(id, new Flow(id, s.mac(), d.mac(), bytes, OvsControlApi.nowUs()));
        Writer w = inputs.get(s.mac().toLowerCase());
        w.write("send " + id + " " + d.ip() + " " + sport + " " + dport + " " + bytes + "\n");
        w.flush();
    }

    /**
     * Every flow started since the last {@link #forget()}, in start order.
     *
     * @return copies
     */
    public synchronized List<Flow> flows() {
        List<Flow> out = new ArrayList<>();
        for (Flow f : flows.values()) {
            Flow c = new Flow(f.id, f.src, f.dst, f.bytes, f.requestedUs);
            c.startUs = f.startUs;
            c.finishUs = f.finishUs;
            c.retransmits = f.retransmits;
            c.timeouts = f.timeouts;
            c.done = f.done;
            c.failure = f.failure;
            out.add(c);
        }
        return out;
    }

    /**
     * Flows that failed (connection refused or reset, timeout).
     *
     * @return count
     */
    public synchronized long failures() {
        return flows.values().stream().filter(f -> f.failure != null).count();
    }

    /** Drops the flow table before a new run (ids restart from 1 in every run). */
    public synchronized void forget() {
        flows.clear();
    }

    @Override
    public void close() {
        for (Writer w : inputs.values()) {
            try {
                w.write("quit\n");
                w.close();
            } catch (IOException e) {
                // The agent is gone already.
            }
        }
        for (Process p : processes.values()) {
            try {
                if (!p.waitFor(2, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}

package org.planck.lab.openflow;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import org.onosproject.net.DeviceId;
import org.planck.api.fabric.PlannedRule;
import org.planck.lab.openflow.FlowModTranslation.FlowOutputMirror;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The lab's OpenFlow controller end: switches connect to it, and it keeps each switch's flow
 * table equal to the rules the lab wants there.
 *
 * <p>The wanted rules per switch are the source of truth: {@link #install} changes them and
 * sends the change if the switch is connected; a switch that (re)connects is wiped and given all
 * of them again, closed by a barrier ({@link SwitchListener#programmed}). A rule a switch refuses
 * is reported ({@link SwitchListener#rejected}, and in the batch's {@link InstallResult}) and
 * dropped from the wanted rules, so what the lab believes installed is what the switch holds.</p>
 */
public final class OpenFlowSouthbound implements AutoCloseable {
    /** Without a message (the switch's echo requests included) for this long, the connection is dropped. */
    public static final Duration READ_IDLE_LIMIT = Duration.ofSeconds(15);
    /** ONOS puts the application id in a flow's top 16 cookie bits; the lab's id is this. */
    static final long LAB_APP_COOKIE = 0x504cL << 48;

    private final SwitchListener listener;
    private final Map<DeviceId, SwitchSession> sessions = new ConcurrentHashMap<>();
    /** Wanted rules per switch by match key; each map is also that switch's lock. */
    private final Map<DeviceId, Map<List<Object>, PlannedRule>> wanted = new ConcurrentHashMap<>();
    private final Map<DeviceId, FlowOutputMirror> mirrors = new ConcurrentHashMap<>();
    private final Set<DeviceId> programmed = ConcurrentHashMap.newKeySet();
    private final AtomicLong cookies = new AtomicLong(1);
    private final AtomicLong undecodable = new AtomicLong();
    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong rejections = new AtomicLong();
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Channel server;

    /**
     * A southbound.
     *
     * @param listener told of connections, reprogramming and refusals
     */
    public OpenFlowSouthbound(SwitchListener listener) {
        this.listener = checkNotNull(listener, "listener");
    }

    /**
     * Starts listening for switches.
     *
     * @param bind address (port 0 picks a free one)
     * @return the bound port
     * @throws InterruptedException if interrupted while binding
     */
    public synchronized int start(InetSocketAddress bind) throws InterruptedException {
        if (server != null) {
            throw new IllegalStateException("already started");
        }
        boss = new NioEventLoopGroup(1);
        workers = new NioEventLoopGroup(2);
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.incrementAndGet();
                        ch.pipeline().addLast(new IdleStateHandler(READ_IDLE_LIMIT.toMillis(), 0, 0,
                                                                   TimeUnit.MILLISECONDS));
                        ch.pipeline().addLast(new OpenFlowFrameCodec(undecodable));
                        ch.pipeline().addLast(new SwitchSession(OpenFlowSouthbound.this));
                    }
                });
        server = b.bind(bind).sync().channel();
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /**
     * Gives a switch a flow-output mirror: its rules from now on also copy each frame, VLAN-tagged,
     * to the mirror port. Takes effect for rules installed afterwards and on reconnect.
     *
     * @param device switch
     * @param mirror mirror, or null for none
     */
    public void setFlowOutputMirror(DeviceId device, FlowOutputMirror mirror) {
        if (mirror == null) {
            mirrors.remove(device);
        } else {
            mirrors.put(device, mirror);
        }
    }

    private Map<List<Object>, PlannedRule> wantedAt(DeviceId device) {
        return wanted.computeIfAbsent(device, d -> new LinkedHashMap<>());
    }

    /**
     * Changes a switch's rules: removes then adds, closed by a barrier. The change is kept even if
     * the switch is down (the future then fails with {@link SwitchUnavailableException}); it goes
     * in when the switch connects.
     *
     * @param device  switch
     * @param adds    rules to install (each replaces a wanted rule with the same match)
     * @param removes rules to delete
     * @return completes when the switch answered the barrier: the result lists refused rules
     */
    public CompletableFuture<InstallResult> install(DeviceId device, Collection<PlannedRule> adds,
                                                    Collection<PlannedRule> removes) {
        List<PlannedRule> a = new ArrayList<>(adds);
        List<PlannedRule> r = new ArrayList<>(removes);
        for (PlannedRule rule : a) {
            if (!rule.device().equals(device)) {
                throw new IllegalArgumentException("rule " + rule + " is not for " + device);
            }
        }
        Map<List<Object>, PlannedRule> w = wantedAt(device);
        synchronized (w) {
            r.forEach(rule -> w.remove(rule.matchKey()));
            a.forEach(rule -> w.put(rule.matchKey(), rule));
            SwitchSession s = sessions.get(device);
            if (s == null) {
                CompletableFuture<InstallResult> f = new CompletableFuture<>();
                f.completeExceptionally(new SwitchUnavailableException(device + " is not connected"));
                return f;
            }
            return s.send(false, a, r, mirrors.get(device), LAB_APP_COOKIE | cookies.getAndAdd(a.size()));
        }
    }

    /**
     * Reads a switch's port counters (one multipart exchange).
     *
     * @param device switch
     * @return counters by port number (OFPP_LOCAL included)
     */
    public CompletableFuture<Map<Long, PortCounters>> portStats(DeviceId device) {
        SwitchSession s = sessions.get(device);
        if (s == null) {
            CompletableFuture<Map<Long, PortCounters>> f = new CompletableFuture<>();
            f.completeExceptionally(new SwitchUnavailableException(device + " is not connected"));
            return f;
        }
        return s.portStats();
    }

    /**
     * Reads a switch's flow counters (one multipart exchange over every table).
     *
     * @param device switch
     * @return one counter per flow entry
     */
    public CompletableFuture<List<FlowCounter>> flowStats(DeviceId device) {
        SwitchSession s = sessions.get(device);
        if (s == null) {
            CompletableFuture<List<FlowCounter>> f = new CompletableFuture<>();
            f.completeExceptionally(new SwitchUnavailableException(device + " is not connected"));
            return f;
        }
        return s.flowStats();
    }

    /**
     * The rules the lab wants on a switch (what it holds once programmed).
     *
     * @param device switch
     * @return rules, a copy
     */
    public List<PlannedRule> wantedRules(DeviceId device) {
        Map<List<Object>, PlannedRule> w = wantedAt(device);
        synchronized (w) {
            return new ArrayList<>(w.values());
        }
    }

    /**
     * Switches connected now.
     *
     * @return device ids
     */
    public Set<DeviceId> connected() {
        return Set.copyOf(sessions.keySet());
    }

    /**
     * Waits until every given switch is connected and has its rules in force.
     *
     * @param devices switches
     * @param timeout how long at most
     * @return whether all are programmed
     * @throws InterruptedException if interrupted
     */
    public boolean awaitProgrammed(Collection<DeviceId> devices, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (programmed) {
            while (!programmed.containsAll(devices)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(programmed, left);
            }
            return true;
        }
    }

    /**
     * Drops a switch's connection (the switch will reconnect); for tests of the reconnect path.
     *
     * @param device switch
     * @return whether it was connected
     */
    public boolean disconnect(DeviceId device) {
        SwitchSession s = sessions.get(device);
        if (s == null) {
            return false;
        }
        s.close("dropped by the controller");
        return true;
    }

    /** @return connections accepted so far */
    public long connectionCount() {
        return connections.get();
    }

    /** @return frames from switches that OpenFlowJ could not parse (counted and skipped) */
    public long undecodableCount() {
        return undecodable.get();
    }

    /** @return errors received from switches */
    public long rejectionCount() {
        return rejections.get();
    }

    void register(SwitchSession session) {
        DeviceId device = session.device();
        Map<List<Object>, PlannedRule> w = wantedAt(device);
        CompletableFuture<InstallResult> done;
        synchronized (w) {
            SwitchSession old = sessions.put(device, session);
            if (old != null && old != session) {
                old.close("replaced by a new connection from the same datapath");
            }
            markProgrammed(device, false);
            listener.connected(device);
            done = session.send(true, new ArrayList<>(w.values()), List.of(), mirrors.get(device),
                                LAB_APP_COOKIE | cookies.getAndAdd(w.size()));
        }
        done.whenComplete((result, err) -> {
            if (result != null && sessions.get(device) == session) {
                markProgrammed(device, true);
                listener.programmed(result);
            }
        });
    }

    void unregister(SwitchSession session, String reason) {
        DeviceId device = session.device();
        if (sessions.remove(device, session)) {
            markProgrammed(device, false);
            listener.disconnected(device, reason);
        }
    }

    void onRejection(RuleRejection r) {
        rejections.incrementAndGet();
        r.rule().ifPresent(rule -> {
            Map<List<Object>, PlannedRule> w = wantedAt(r.device());
            synchronized (w) {
                w.remove(rule.matchKey(), rule);
            }
        });
        listener.rejected(r);
    }

    private void markProgrammed(DeviceId device, boolean yes) {
        synchronized (programmed) {
            if (yes) {
                programmed.add(device);
            } else {
                programmed.remove(device);
            }
            programmed.notifyAll();
        }
    }

    @Override
    public synchronized void close() {
        if (server != null) {
            server.close().syncUninterruptibly();
            sessions.values().forEach(s -> s.close("controller stopping"));
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            server = null;
        }
    }
}

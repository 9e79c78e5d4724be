package org.planck.lab.openflow;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleStateEvent;
import org.onosproject.net.DeviceId;
import org.planck.api.fabric.PlannedRule;
import org.planck.lab.openflow.FlowModTranslation.FlowOutputMirror;
import org.projectfloodlight.openflow.protocol.OFBarrierReply;
import org.projectfloodlight.openflow.protocol.OFEchoRequest;
import org.projectfloodlight.openflow.protocol.OFErrorMsg;
import org.projectfloodlight.openflow.protocol.OFFeaturesReply;
import org.projectfloodlight.openflow.protocol.OFFlowStatsEntry;
import org.projectfloodlight.openflow.protocol.OFFlowStatsReply;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFPortStatsEntry;
import org.projectfloodlight.openflow.protocol.OFPortStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsReplyFlags;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadActionErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadMatchErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadRequestErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadInstructionErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFFlowModFailedErrorMsg;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.planck.lab.openflow.FlowModTranslation.OF13;

/**
 * One switch's OpenFlow connection: the handshake (HELLO, FEATURES), echo replies, batches of
 * flow-mods closed by barriers, errors matched to the flow-mod they answer, port statistics.
 * Inbound messages arrive on the channel's event loop; batches may be sent from any thread.
 */
final class SwitchSession extends SimpleChannelInboundHandler<OFMessage> {
    private final OpenFlowSouthbound owner;
    private final AtomicLong xids = new AtomicLong(1);
    /** Flow-mods awaiting their batch's barrier reply, by xid: an error names one of these. */
    private final Map<Long, PendingFlowMod> inFlight = new ConcurrentHashMap<>();
    private final Map<Long, Batch> barriers = new ConcurrentHashMap<>();
    private final Map<Long, StatsRequest> stats = new ConcurrentHashMap<>();
    private final Map<Long, FlowStatsRequest> flowStats = new ConcurrentHashMap<>();
    private volatile Channel channel;
    private volatile DeviceId device;
    private volatile String closeReason = "connection closed";

    SwitchSession(OpenFlowSouthbound owner) {
        this.owner = owner;
    }

    DeviceId device() {
        return device;
    }

    private long nextXid() {
        // xids are 32 bits on the wire; 0 is left for unsolicited messages.
        return (xids.getAndIncrement() & 0x7fffffffL) | 1L;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        ctx.writeAndFlush(OF13.buildHello().setXid(nextXid()).build());
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, OFMessage msg) {
        switch (msg.getType()) {
            case HELLO:
                if (msg.getVersion().compareTo(OFVersion.OF_13) < 0) {
                    close("switch speaks " + msg.getVersion() + ", the lab needs OF_13");
                    return;
                }
                ctx.writeAndFlush(OF13.buildFeaturesRequest().setXid(nextXid()).build());
                break;
            case FEATURES_REPLY:
                if (device == null) {
                    device = DeviceId.deviceId(String.format("of:%016x",
                                                             ((OFFeaturesReply) msg).getDatapathId().getLong()));
                    owner.register(this);
                }
                break;
            case ECHO_REQUEST:
                ctx.writeAndFlush(OF13.buildEchoReply().setXid(msg.getXid())
                                          .setData(((OFEchoRequest) msg).getData()).build());
                break;
            case ERROR:
                onError((OFErrorMsg) msg);
                break;
            case BARRIER_REPLY:
                onBarrierReply((OFBarrierReply) msg);
                break;
            case STATS_REPLY:
                if (msg instanceof OFPortStatsReply) {
                    onPortStats((OFPortStatsReply) msg);
                } else if (msg instanceof OFFlowStatsReply) {
                    onFlowStats((OFFlowStatsReply) msg);
                }
                break;
            default:
                // Port status, flow-removed and packet-in carry nothing the lab acts on.
                break;
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            close("no message (not even an echo) from the switch for too long");
        } else {
            super.userEventTriggered(ctx, evt);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        close("connection error: " + cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        SwitchUnavailableException e = new SwitchUnavailableException(
                (device == null ? "switch" : device.toString()) + " disconnected: " + closeReason);
        barriers.values().forEach(b -> b.future.completeExceptionally(e));
        stats.values().forEach(s -> s.future.completeExceptionally(e));
        flowStats.values().forEach(s -> s.future.completeExceptionally(e));
        barriers.clear();
        stats.clear();
        flowStats.clear();
        inFlight.clear();
        if (device != null) {
            owner.unregister(this, closeReason);
        }
    }

    void close(String reason) {
        closeReason = reason;
        Channel c = channel;
        if (c != null) {
            c.close();
        }
    }

    /**
     * Sends flow-mods and a barrier; completes when the barrier reply arrives.
     *
     * @param deleteAllFirst whether the batch starts by wiping every table
     * @param adds           rules to add
     * @param removes        rules to delete (strict)
     * @param mirror         the switch's flow-output mirror, or null
     * @param cookieBase     cookies of the adds are cookieBase + their index
     * @return the batch's result
     */
    synchronized CompletableFuture<InstallResult> send(boolean deleteAllFirst, List<PlannedRule> adds,
                                                       List<PlannedRule> removes, FlowOutputMirror mirror,
                                                       long cookieBase) {
        Channel c = channel;
        Batch batch = new Batch(System.nanoTime());
        if (c == null || !c.isActive()) {
            batch.future.completeExceptionally(new SwitchUnavailableException(device + " is not connected"));
            return batch.future;
        }
        if (deleteAllFirst) {
            long xid = nextXid();
            batch.xids.add(xid);
            inFlight.put(xid, new PendingFlowMod(null, batch));
            c.write(FlowModTranslation.deleteAll(xid));
        }
        for (PlannedRule r : removes) {
            long xid = nextXid();
            batch.xids.add(xid);
            inFlight.put(xid, new PendingFlowMod(r, batch));
            c.write(FlowModTranslation.delete(r, xid));
        }
        long cookie = cookieBase;
        for (PlannedRule r : adds) {
            long xid = nextXid();
            batch.xids.add(xid);
            inFlight.put(xid, new PendingFlowMod(r, batch));
            c.write(FlowModTranslation.add(r, mirror, cookie++, xid));
        }
        long barrierXid = nextXid();
        barriers.put(barrierXid, batch);
        c.writeAndFlush(OF13.buildBarrierRequest().setXid(barrierXid).build());
        return batch.future;
    }

    CompletableFuture<Map<Long, PortCounters>> portStats() {
        Channel c = channel;
        StatsRequest req = new StatsRequest();
        if (c == null || !c.isActive()) {
            req.future.completeExceptionally(new SwitchUnavailableException(device + " is not connected"));
            return req.future;
        }
        long xid = nextXid();
        stats.put(xid, req);
        c.writeAndFlush(OF13.buildPortStatsRequest().setXid(xid).setPortNo(OFPort.ANY).build());
        return req.future;
    }

    CompletableFuture<List<FlowCounter>> flowStats() {
        Channel c = channel;
        FlowStatsRequest req = new FlowStatsRequest();
        if (c == null || !c.isActive()) {
            req.future.completeExceptionally(new SwitchUnavailableException(device + " is not connected"));
            return req.future;
        }
        long xid = nextXid();
        flowStats.put(xid, req);
        c.writeAndFlush(OF13.buildFlowStatsRequest().setXid(xid).setTableId(TableId.ALL).setOutPort(OFPort.ANY)
                                .setOutGroup(OFGroup.ANY).setMatch(OF13.buildMatch().build()).build());
        return req.future;
    }

    private void onFlowStats(OFFlowStatsReply reply) {
        FlowStatsRequest req = flowStats.get(reply.getXid());
        if (req == null) {
            return;
        }
        for (OFFlowStatsEntry e : reply.getEntries()) {
            req.counters.add(new FlowCounter(e.getMatch(), e.getPriority(), e.getPacketCount().getValue(),
                                             e.getByteCount().getValue()));
        }
        if (!reply.getFlags().contains(OFStatsReplyFlags.REPLY_MORE)) {
            flowStats.remove(reply.getXid());
            req.future.complete(Collections.unmodifiableList(req.counters));
        }
    }

    private void onBarrierReply(OFBarrierReply reply) {
        Batch b = barriers.remove(reply.getXid());
        if (b == null) {
            return;
        }
        long now = System.nanoTime();
        b.xids.forEach(inFlight::remove);
        List<RuleRejection> rejected;
        synchronized (b.rejections) {
            rejected = new ArrayList<>(b.rejections);
        }
        b.future.complete(new InstallResult(device, b.xids.size(), rejected, b.sentNanos, now));
    }

    private void onError(OFErrorMsg err) {
        long xid = err.getXid();
        FlowStatsRequest fs = flowStats.remove(xid);
        if (fs != null) {
            fs.future.completeExceptionally(new IllegalStateException(
                    device + " refused the flow-statistics request: " + err.getErrType()));
            return;
        }
        StatsRequest s = stats.remove(xid);
        if (s != null) {
            s.future.completeExceptionally(new IllegalStateException(
                    device + " refused the port-statistics request: " + err.getErrType()));
            return;
        }
        PendingFlowMod p = inFlight.get(xid);
        RuleRejection r = new RuleRejection(device, p == null ? null : p.rule, xid,
                                            err.getErrType().name(), errorCode(err));
        if (p != null) {
            synchronized (p.batch.rejections) {
                p.batch.rejections.add(r);
            }
        }
        owner.onRejection(r);
    }

    private static String errorCode(OFErrorMsg err) {
        if (err instanceof OFFlowModFailedErrorMsg) {
            return ((OFFlowModFailedErrorMsg) err).getCode().name();
        } else if (err instanceof OFBadActionErrorMsg) {
            return ((OFBadActionErrorMsg) err).getCode().name();
        } else if (err instanceof OFBadMatchErrorMsg) {
            return ((OFBadMatchErrorMsg) err).getCode().name();
        } else if (err instanceof OFBadRequestErrorMsg) {
            return ((OFBadRequestErrorMsg) err).getCode().name();
        } else if (err instanceof OFBadInstructionErrorMsg) {
            return ((OFBadInstructionErrorMsg) err).getCode().name();
        }
        return "?";
    }

    private void onPortStats(OFPortStatsReply reply) {
        StatsRequest req = stats.get(reply.getXid());
        if (req == null) {
            return;
        }
        for (OFPortStatsEntry e : reply.getEntries()) {
            long port = e.getPortNo().getPortNumber() & 0xffffffffL;
            req.counters.put(port, new PortCounters(port, e.getRxPackets().getValue(), e.getTxPackets().getValue(),
                                                    e.getRxBytes().getValue(), e.getTxBytes().getValue(),
                                                    e.getTxDropped().getValue()));
        }
        if (!reply.getFlags().contains(OFStatsReplyFlags.REPLY_MORE)) {
            stats.remove(reply.getXid());
            req.future.complete(Collections.unmodifiableMap(req.counters));
        }
    }

    private static final class Batch {
        final long sentNanos;
        final List<Long> xids = new ArrayList<>();
        final List<RuleRejection> rejections = new ArrayList<>();
        final CompletableFuture<InstallResult> future = new CompletableFuture<>();

        Batch(long sentNanos) {
            this.sentNanos = sentNanos;
        }
    }

    private static final class PendingFlowMod {
        final PlannedRule rule;
        final Batch batch;

        PendingFlowMod(PlannedRule rule, Batch batch) {
            this.rule = rule;
            this.batch = batch;
        }
    }

    private static final class FlowStatsRequest {
        final List<FlowCounter> counters = new ArrayList<>();
        final CompletableFuture<List<FlowCounter>> future = new CompletableFuture<>();
    }

    private static final class StatsRequest {
        final Map<Long, PortCounters> counters = new TreeMap<>();
        final CompletableFuture<Map<Long, PortCounters>> future = new CompletableFuture<>();
    }
}

package org.planck.lab.openflow;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFFlowModCommand;
import org.projectfloodlight.openflow.protocol.OFFlowModFailedCode;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFMessageReader;
import org.projectfloodlight.openflow.protocol.OFPortStatsEntry;
import org.projectfloodlight.openflow.protocol.OFStatsReplyFlags;
import org.projectfloodlight.openflow.protocol.OFType;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFErrorCauseData;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Predicate;

/**
 * An OpenFlow 1.3 switch over loopback that speaks through OpenFlowJ: handshake, a flow table
 * that flow-adds and deletes change (keyed by match and priority, as a real table), barrier
 * replies (which a test can hold back), flow-mods refused by a predicate with FLOW_MOD_FAILED,
 * and port statistics in two multipart parts.
 */
final class FakeOpenFlowSwitch implements AutoCloseable {
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);

    private final long dpid;
    private final Socket socket;
    private final OutputStream out;
    private final Thread reader;
    private final List<OFFlowMod> flowMods = new CopyOnWriteArrayList<>();
    /** The flow table: (match, priority) -> the flow-add that put the entry there. */
    private final Map<String, OFFlowMod> table = new LinkedHashMap<>();
    private final BlockingQueue<OFMessage> received = new LinkedBlockingQueue<>();
    private final List<OFMessage> heldBarriers = new ArrayList<>();
    private volatile boolean holdBarriers;
    private volatile Predicate<OFFlowMod> refuse = m -> false;

    FakeOpenFlowSwitch(long dpid, int controllerPort) throws IOException {
        this.dpid = dpid;
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", controllerPort), 2000);
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        send(OF13.buildHello().setXid(1).build());
        reader = new Thread(this::readLoop, "fake-switch-" + Long.toHexString(dpid));
        reader.setDaemon(true);
        reader.start();
    }

    void refuse(Predicate<OFFlowMod> which) {
        refuse = which;
    }

    void holdBarriers(boolean hold) throws IOException {
        holdBarriers = hold;
        if (!hold) {
            List<OFMessage> release;
            synchronized (heldBarriers) {
                release = new ArrayList<>(heldBarriers);
                heldBarriers.clear();
            }
            for (OFMessage b : release) {
                send(OF13.buildBarrierReply().setXid(b.getXid()).build());
            }
        }
    }

    List<OFFlowMod> flowMods() {
        return flowMods;
    }

    /** @return a copy of the flow table's entries */
    List<OFFlowMod> table() {
        synchronized (table) {
            return new ArrayList<>(table.values());
        }
    }

    /** Every message the switch received, in order (flow-mods and barriers included). */
    BlockingQueue<OFMessage> received() {
        return received;
    }

    synchronized void send(OFMessage msg) throws IOException {
        ByteBuf buf = Unpooled.buffer();
        msg.writeTo(buf);
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        out.write(bytes);
        out.flush();
    }

    synchronized void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    private void readLoop() {
        OFMessageReader<OFMessage> ofReader = OFFactories.getGenericReader();
        try (DataInputStream in = new DataInputStream(socket.getInputStream())) {
            while (true) {
                byte[] header = new byte[8];
                in.readFully(header);
                int length = ((header[2] & 0xff) << 8) | (header[3] & 0xff);
                byte[] frame = new byte[length];
                System.arraycopy(header, 0, frame, 0, 8);
                in.readFully(frame, 8, length - 8);
                OFMessage msg = ofReader.readFrom(Unpooled.wrappedBuffer(frame));
                received.add(msg);
                answer(msg);
            }
        } catch (Exception e) {
            // Connection closed by either side: the switch is gone.
        }
    }

    private void answer(OFMessage msg) throws IOException {
        if (msg.getType() == OFType.FEATURES_REQUEST) {
            send(OF13.buildFeaturesReply().setXid(msg.getXid()).setDatapathId(DatapathId.of(dpid))
                         .setNBuffers(0).setNTables((short) 254).build());
        } else if (msg.getType() == OFType.FLOW_MOD) {
            OFFlowMod fm = (OFFlowMod) msg;
            flowMods.add(fm);
            if (refuse.test(fm)) {
                byte[] cause = new byte[64];
                send(OF13.errorMsgs().buildFlowModFailedErrorMsg().setXid(fm.getXid())
                             .setCode(OFFlowModFailedCode.BAD_TABLE_ID)
                             .setData(OFErrorCauseData.of(cause, OFVersion.OF_13)).build());
                return;
            }
            apply(fm);
        } else if (msg.getType() == OFType.BARRIER_REQUEST) {
            if (holdBarriers) {
                synchronized (heldBarriers) {
                    heldBarriers.add(msg);
                }
            } else {
                send(OF13.buildBarrierReply().setXid(msg.getXid()).build());
            }
        } else if (msg instanceof org.projectfloodlight.openflow.protocol.OFFlowStatsRequest) {
            // Each entry reports as many packets as its cookie's low byte, so a test can tell them apart.
            List<org.projectfloodlight.openflow.protocol.OFFlowStatsEntry> entries = new ArrayList<>();
            for (OFFlowMod fm : table()) {
                entries.add(OF13.buildFlowStatsEntry().setMatch(fm.getMatch()).setPriority(fm.getPriority())
                                    .setCookie(fm.getCookie()).setTableId(fm.getTableId())
                                    .setPacketCount(U64.of(fm.getCookie().getValue() & 0xff))
                                    .setByteCount(U64.of(100 * (fm.getCookie().getValue() & 0xff))).build());
            }
            send(OF13.buildFlowStatsReply().setXid(msg.getXid()).setEntries(entries)
                         .setFlags(EnumSet.noneOf(OFStatsReplyFlags.class)).build());
        } else if (msg.getType() == OFType.STATS_REQUEST) {
            send(OF13.buildPortStatsReply().setXid(msg.getXid()).setFlags(EnumSet.of(OFStatsReplyFlags.REPLY_MORE))
                         .setEntries(List.of(portEntry(1, 100), portEntry(2, 200))).build());
            send(OF13.buildPortStatsReply().setXid(msg.getXid()).setFlags(EnumSet.noneOf(OFStatsReplyFlags.class))
                         .setEntries(List.of(portEntry(3, 300))).build());
        }
    }

    private static OFPortStatsEntry portEntry(int port, long packets) {
        return OF13.buildPortStatsEntry().setPortNo(OFPort.of(port))
                .setRxPackets(U64.of(packets)).setTxPackets(U64.of(packets + 1))
                .setRxBytes(U64.of(packets * 1500)).setTxBytes(U64.of((packets + 1) * 1500))
                .setRxDropped(U64.ZERO).setTxDropped(U64.of(port))
                .setRxErrors(U64.ZERO).setTxErrors(U64.ZERO).setRxFrameErr(U64.ZERO).setRxOverErr(U64.ZERO)
                .setRxCrcErr(U64.ZERO).setCollisions(U64.ZERO).setDurationSec(1).setDurationNsec(0).build();
    }

    private void apply(OFFlowMod fm) {
        String key = fm.getMatch().toString() + "/" + fm.getPriority();
        synchronized (table) {
            if (fm.getCommand() == OFFlowModCommand.ADD) {
                table.put(key, fm);
            } else if (fm.getCommand() == OFFlowModCommand.DELETE_STRICT) {
                table.remove(key);
            } else if (fm.getCommand() == OFFlowModCommand.DELETE && fm.getMatch().getMatchFields().iterator()
                    .hasNext() == false) {
                table.clear();
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}

package org.planck.lab.openflow;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageCodec;
import org.projectfloodlight.openflow.exceptions.OFParseError;
import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFMessageReader;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * OpenFlow messages on a TCP stream: each frame is the 8-byte header's length; OpenFlowJ parses
 * and writes the bodies. A frame OpenFlowJ cannot parse is counted and skipped (the length still
 * frames the stream); a length below the header size means the stream is lost, and the
 * connection is closed.
 */
final class OpenFlowFrameCodec extends ByteToMessageCodec<OFMessage> {
    static final int HEADER_LENGTH = 8;

    private final OFMessageReader<OFMessage> reader = OFFactories.getGenericReader();
    private final AtomicLong undecodable;

    OpenFlowFrameCodec(AtomicLong undecodable) {
        this.undecodable = undecodable;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, OFMessage msg, ByteBuf out) {
        msg.writeTo(out);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= HEADER_LENGTH) {
            int start = in.readerIndex();
            int length = in.getUnsignedShort(start + 2);
            if (length < HEADER_LENGTH) {
                undecodable.incrementAndGet();
                in.skipBytes(in.readableBytes());
                ctx.close();
                return;
            }
            if (in.readableBytes() < length) {
                return;
            }
            ByteBuf frame = in.retainedSlice(start, length);
            in.skipBytes(length);
            try {
                OFMessage msg = reader.readFrom(frame);
                if (msg == null) {
                    undecodable.incrementAndGet();
                } else {
                    out.add(msg);
                }
            } catch (OFParseError | RuntimeException e) {
                undecodable.incrementAndGet();
            } finally {
                frame.release();
            }
        }
    }
}

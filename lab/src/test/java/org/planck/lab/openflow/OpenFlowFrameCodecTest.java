package org.planck.lab.openflow;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.Test;
import org.projectfloodlight.openflow.protocol.OFMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.planck.lab.openflow.FlowModTranslation.OF13;

/**
 * Property tests of the framing around OpenFlowJ, over seeded random streams: valid messages
 * come out whole and in order whatever the TCP segmentation, well-framed garbage is counted and
 * skipped, and arbitrary bytes never escape as an exception.
 */
public class OpenFlowFrameCodecTest {
    private static final int CASES = 300;

    private static byte[] bytesOf(OFMessage m) {
        ByteBuf b = Unpooled.buffer();
        m.writeTo(b);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    private static OFMessage randomMessage(Random r, long xid) {
        switch (r.nextInt(3)) {
            case 0:
                byte[] data = new byte[r.nextInt(200)];
                r.nextBytes(data);
                return OF13.buildEchoRequest().setXid(xid).setData(data).build();
            case 1:
                return OF13.buildBarrierReply().setXid(xid).build();
            default:
                return OF13.buildFeaturesRequest().setXid(xid).build();
        }
    }

    /** A frame with a valid length and OpenFlow 1.3 version but a message type that does not exist. */
    private static byte[] garbageFrame(Random r) {
        int len = 8 + r.nextInt(40);
        byte[] f = new byte[len];
        r.nextBytes(f);
        f[0] = 4;
        f[1] = (byte) (40 + r.nextInt(200));
        f[2] = (byte) (len >>> 8);
        f[3] = (byte) len;
        return f;
    }

    @Test
    public void validMessagesSurviveAnySegmentationAndGarbageIsCountedAndSkipped() {
        for (int seed = 0; seed < CASES; seed++) {
            Random r = new Random(seed);
            List<OFMessage> sent = new ArrayList<>();
            java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
            int garbage = 0;
            int n = 1 + r.nextInt(20);
            for (int i = 0; i < n; i++) {
                if (r.nextInt(4) == 0) {
                    byte[] g = garbageFrame(r);
                    stream.write(g, 0, g.length);
                    garbage++;
                }
                OFMessage m = randomMessage(r, i + 1);
                sent.add(m);
                byte[] b = bytesOf(m);
                stream.write(b, 0, b.length);
            }
            AtomicLong undecodable = new AtomicLong();
            EmbeddedChannel ch = new EmbeddedChannel(new OpenFlowFrameCodec(undecodable));
            byte[] all = stream.toByteArray();
            int at = 0;
            while (at < all.length) {
                int chunk = Math.min(all.length - at, 1 + r.nextInt(64));
                ch.writeInbound(Unpooled.wrappedBuffer(all, at, chunk));
                at += chunk;
            }
            List<OFMessage> got = new ArrayList<>();
            OFMessage m;
            while ((m = ch.readInbound()) != null) {
                got.add(m);
            }
            assertEquals("seed " + seed, sent, got);
            assertEquals("seed " + seed, garbage, undecodable.get());
            assertTrue("seed " + seed, ch.isOpen());
            ch.finishAndReleaseAll();
        }
    }

    @Test
    public void arbitraryBytesNeverThrowAndABrokenLengthClosesTheConnection() {
        for (int seed = 0; seed < CASES; seed++) {
            Random r = new Random(1000 + seed);
            byte[] junk = new byte[r.nextInt(300)];
            r.nextBytes(junk);
            AtomicLong undecodable = new AtomicLong();
            EmbeddedChannel ch = new EmbeddedChannel(new OpenFlowFrameCodec(undecodable));
            ch.writeInbound(Unpooled.wrappedBuffer(junk));
            Object o;
            while ((o = ch.readInbound()) != null) {
                assertTrue(o instanceof OFMessage);
            }
            ch.finishAndReleaseAll();
        }
        AtomicLong undecodable = new AtomicLong();
        EmbeddedChannel ch = new EmbeddedChannel(new OpenFlowFrameCodec(undecodable));
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[]{4, 2, 0, 3, 0, 0, 0, 1, 9, 9}));
        assertFalse("a length below the header loses the framing", ch.isOpen());
        assertEquals(1, undecodable.get());
    }
}

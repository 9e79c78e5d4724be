package org.planck.api.telemetry;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;

/**
 * Flow selection shared by REST and CLI.
 */
public class FlowFilterTest {
    private static final ConnectPoint P1 = ConnectPoint.deviceConnectPoint("of:0000000000000001/1");
    private static final ConnectPoint P2 = ConnectPoint.deviceConnectPoint("of:0000000000000001/2");

    private static FlowRecord record(String src, String dst, ConnectPoint port, double rate) {
        return new FlowRecord(FlowKey.of(IpAddress.valueOf(src), IpAddress.valueOf(dst), 6, 1, 2), port,
                MacAddress.valueOf("02:70:00:00:00:01"), rate, RateEstimator.TCP_SEQ, 1, 0, "c1", 0);
    }

    private final List<FlowRecord> records = ImmutableList.of(
            record("10.0.0.1", "10.0.0.2", P1, 10), record("10.0.0.3", "10.0.0.1", P2, 30),
            record("10.0.0.4", "10.0.0.5", P1, 20));

    private static List<Double> rates(List<FlowRecord> rs) {
        return rs.stream().map(FlowRecord::bytesPerSec).collect(Collectors.toList());
    }

    @Test
    public void ordersByRateDescending() {
        assertEquals(ImmutableList.of(30.0, 20.0, 10.0),
                rates(new FlowFilter(null, null).select(records, ImmutableSet.of())));
    }

    @Test
    public void selectsByHostInEitherDirection() {
        assertEquals(ImmutableList.of(30.0, 10.0), rates(new FlowFilter(ImmutableSet.of(IpAddress.valueOf("10.0.0.1")),
                null).select(records, ImmutableSet.of())));
    }

    @Test
    public void selectsByCongestion() {
        assertEquals(ImmutableList.of(20.0, 10.0), rates(new FlowFilter(null, true).select(records, ImmutableSet.of(P1))));
        assertEquals(ImmutableList.of(30.0), rates(new FlowFilter(null, false).select(records, ImmutableSet.of(P1))));
    }
}

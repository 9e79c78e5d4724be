package org.planck.cli.telemetry;

import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;
import org.planck.api.inband.ConformanceStatus;
import org.planck.api.telemetry.FlowRateEvent;
import org.planck.api.telemetry.FlowRecord;
import org.planck.api.telemetry.RateEstimator;

import static org.junit.Assert.assertEquals;

/**
 * planck-flows shows a flow's PINT path conformance when the flow has any.
 */
public class FlowsCommandLineTest {
    private static final FlowRecord RECORD = FlowRecord.of(new FlowRateEvent(
            FlowKey.of(IpAddress.valueOf("10.0.0.1"), IpAddress.valueOf("10.0.0.9"), 6, 10001, 5001),
            ConnectPoint.deviceConnectPoint("of:0000000000000001/3"), MacAddress.valueOf("00:00:00:00:00:09"),
            1.25e6, 10, 1, 2, RateEstimator.TCP_SEQ, false), "c1", 5);

    @Test
    public void showsThePintStatusWhenKnown() {
        String base = RECORD.flow() + " switch=of:0000000000000001 port=3 rate=10.000 Mb/s dstMac=00:00:00:00:00:09"
                + " estimator=TCP_SEQ collector=c1";
        assertEquals(base, FlowsCommand.line(RECORD, false, null));
        assertEquals(base + " CONGESTED pint=NON_CONFORMING",
                FlowsCommand.line(RECORD, true, ConformanceStatus.NON_CONFORMING));
    }
}

package org.planck.lab.ovs;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * The barrier-reply table: intervals from the right columns, decisions without moves left out.
 */
public class BarrierLatencySectionTest {
    @Rule
    public TemporaryFolder dir = new TemporaryFolder();

    private static final String HEAD = "workload,mode,trigger,switch,port,sample_us,receipt_us,decision_us,"
            + "fabric_applied_us,answered_us,moves,detect_us,sent_us,submitted_us,window_us\n";

    @Test
    public void intervalsComeFromTheBarrierReplyColumn() throws Exception {
        Path csv = dir.getRoot().toPath().resolve("loop-latency.csv");
        Files.writeString(csv, HEAD
                + "stride8,PlanckTE,NOTICE,of:1,2,1000,1100,1200,5000,5300,1,-1,-1,1250,0\n"
                + "stride8,PlanckTE,NOTICE,of:1,2,2000,2100,2200,3000,3100,2,-1,-1,2250,0\n"
                + "stride8,PlanckTE,NOTICE,of:1,2,9000,9100,9200,-1,-1,0,-1,-1,-1,0\n"
                + "stride8,Poll-100ms,POLL,of:1,3,10000,10100,10200,11000,11050,1,-1,-1,10300,100000\n");
        String md = BarrierLatencySection.markdown(csv);
        // PlanckTE: submitted -> barrier 3750 and 750; sample -> barrier 4000 and 1000.
        assertTrue(md, md.contains("| PlanckTE | rules submitted → barrier reply (in force) | 2 | 750 | 3750 | 3750 | 3750 |"));
        assertTrue(md, md.contains("| PlanckTE | barrier reply → controller has the answer | 2 | 100 | 300 | 300 | 300 |"));
        assertTrue(md, md.contains("| PlanckTE | **sample → rule in force (barrier reply)** | 2 | 1000 | 4000 | 4000 | 4000 |"));
        assertTrue(md, md.contains("| Poll-100ms | measurement window start → rule in force | 1 | 101000 |"));
        assertEquals("no decision moved flows: no table", "",
                     BarrierLatencySection.markdown(write(HEAD + "s,PlanckTE,N,of:1,2,1,2,3,-1,-1,0,-1,-1,-1,0\n")));
    }

    private Path write(String text) throws Exception {
        Path p = dir.newFile().toPath();
        Files.writeString(p, text);
        return p;
    }
}

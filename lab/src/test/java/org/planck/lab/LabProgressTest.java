package org.planck.lab;

import org.junit.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

public class LabProgressTest {
    @Test
    public void oneLinePerStageWithTheFlowsDoneSoFar() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (LabProgress p = new LabProgress.Lines(32, new PrintStream(buf, true, StandardCharsets.UTF_8))) {
            p.stage("stride(8) / Static");
            for (int i = 0; i < 16; i++) {
                p.step();
            }
            p.maxHint(48);
            p.stage("stride(8) / PlanckTE");
            p.step();
        }
        String[] lines = buf.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals(3, lines.length);
        assertTrue(lines[0], lines[0].startsWith("lab: [1] stride(8) / Static (0/32 flows done"));
        assertTrue(lines[1], lines[1].startsWith("lab: [2] stride(8) / PlanckTE (16/48 flows done"));
        assertTrue(lines[2], lines[2].startsWith("lab: done (17/48 flows"));
        // No carriage returns: a log file reads line by line.
        assertTrue(!buf.toString(StandardCharsets.UTF_8).contains("\r"));
    }
}

package org.planck.lab;

import org.junit.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/** Command-line checks of {@code planck-lab experiment} that refuse a run before anything starts. */
public class LabCommandTest {

    private static String[] run(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new LabCommand()).setCaseInsensitiveEnumValuesAllowed(true);
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new String[]{Integer.toString(code), err.toString()};
    }

    @Test
    public void flowReportPeriodOutsideItsRangeIsAUsageError() {
        for (String bad : new String[]{"0", "0.5", "1001"}) {
            String[] r = run("experiment", "--flow-report-ms", bad, "--emu-bin", "/nonexistent");
            assertEquals("exit code for " + bad, "2", r[0]);
            assertTrue(r[1], r[1].contains("--flow-report-ms must be in 1..1000"));
        }
    }

    @Test
    public void flowReportPeriodMustBeANumber() {
        String[] r = run("experiment", "--flow-report-ms", "soon");
        assertEquals("2", r[0]);
        assertTrue(r[1], r[1].contains("--flow-report-ms"));
    }

    @Test
    public void pintBitsOutsideItsRangeIsAUsageError() {
        for (String bad : new String[]{"-1", "17"}) {
            String[] r = run("experiment", "--pint-bits", bad, "--emu-bin", "/nonexistent");
            assertEquals("exit code for " + bad, "2", r[0]);
            assertTrue(r[1], r[1].contains("--pint-bits must be 0 (off) to 16"));
        }
    }

    @Test
    public void badTelemetrySettingsAreUsageErrors() {
        String[][] cases = {
            {"--telemetry", "sflow"}, {"--telemetry", "int", "--int-version", "0.5"},
            {"--telemetry", "int", "--int-sample", "0"}, {"--int-queue-threshold", "8", "--int-queue-hysteresis", "8"},
            {"--telemetry", "both", "--int-interface", "no such name"},
        };
        String[] reasons = {"--telemetry must be mirror, int or both", "version must be 1.0 or 2", "sampling",
                            "hysteresis", "bad interface name"};
        for (int i = 0; i < cases.length; i++) {
            String[] args = new String[cases[i].length + 3];
            args[0] = "experiment";
            System.arraycopy(cases[i], 0, args, 1, cases[i].length);
            args[args.length - 2] = "--emu-bin";
            args[args.length - 1] = "/nonexistent";
            String[] r = run(args);
            assertEquals(String.join(" ", cases[i]), "2", r[0]);
            assertTrue(r[1], r[1].contains(reasons[i]));
        }
    }

    @Test
    public void realHostOptionsAreCheckedBeforeAnythingStarts() throws Exception {
        String[] r = run("experiment", "--link-mbps", "0", "--emu-bin", "/nonexistent");
        assertEquals("2", r[0]);
        assertTrue(r[1], r[1].contains("--link-mbps must be in 1..100000"));
        r = run("experiment", "--flow-bytes", "0", "--emu-bin", "/nonexistent");
        assertEquals("2", r[0]);
        assertTrue(r[1], r[1].contains("--flow-bytes must be positive"));
        r = run("experiment", "--linux-hosts", "/nonexistent/hosts.toml", "--emu-bin", "/nonexistent");
        assertEquals("2", r[0]);
        assertTrue(r[1], r[1].contains("--linux-hosts /nonexistent/hosts.toml is not readable"));
        java.nio.file.Path noSection = java.nio.file.Files.createTempFile("hosts", ".toml");
        try {
            java.nio.file.Files.writeString(noSection, "[fabric]\nspin = true\n");
            r = run("experiment", "--linux-hosts", noSection.toString(), "--emu-bin", "/nonexistent");
            assertEquals("2", r[0]);
            assertTrue(r[1], r[1].contains("has no [linux_hosts] section"));
        } finally {
            java.nio.file.Files.delete(noSection);
        }
    }
}

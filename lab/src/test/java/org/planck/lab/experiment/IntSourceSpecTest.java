package org.planck.lab.experiment;

import org.junit.Test;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * The fabric config's INT section as the lab writes it. The same text is parsed by the emulator's
 * test {@code lab::int::tests::the_labs_int_section_parses} (keep both in step).
 */
public class IntSourceSpecTest {
    static final String SECTION = "\n[int]\ndomain = \"edges\"\nversion = \"2\"\nsample_one_in = 64\n"
            + "max_reports_per_ms = 50\n\n[int.report]\ninterface = \"plk-int0\"\ndst_mac = \"02:00:00:00:1e:02\"\n"
            + "dst_ip = \"198.18.14.1\"\ndst_port = 54321\n";

    @Test
    public void theSectionIsWhatTheFabricParses() {
        assertEquals(SECTION, new IntSourceSpec("plk-int0", "2", 64, 50).toToml());
    }

    @Test
    public void theFabricConfigCarriesItOnlyWhenAsked() {
        String on = new FabricSpec(FabricSpec.Shape.FAT_TREE, 1_000_000_000L, "127.0.0.1:1")
                .withInt(new IntSourceSpec("plk-int0", "1.0", 16, 10)).toToml();
        assertTrue(on, on.contains("[int]\ndomain = \"edges\"\nversion = \"1.0\"\nsample_one_in = 16\n"));
        String off = new FabricSpec(FabricSpec.Shape.FAT_TREE, 1_000_000_000L, "127.0.0.1:1").toToml();
        assertTrue(off, !off.contains("[int"));
    }

    @Test(expected = IllegalArgumentException.class)
    public void anInterfaceNameThatCouldBreakTheTomlIsRefused() {
        new IntSourceSpec("plk\"int", "2", 64, 50);
    }
}

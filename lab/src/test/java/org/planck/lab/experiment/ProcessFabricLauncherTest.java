package org.planck.lab.experiment;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.planck.lab.emu.EmulatorClient;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * The fabric process launcher: config file content, waiting for the control API, clean
 * shutdown, and a clear error when the binary dies. A small Python stand-in plays planck-emu.
 */
public class ProcessFabricLauncherTest {
    private static final String FAKE_EMU = String.join("\n",
            "#!/usr/bin/env python3",
            "import json, os, sys, http.server, tomllib",
            "assert sys.argv[1:3] == ['fabric', '--config'], sys.argv",
            "cfg = tomllib.load(open(sys.argv[3], 'rb'))",
            "if cfg['fabric'].get('fail'): sys.exit(3)",
            "open(sys.argv[3] + '.nice', 'w').write(str(os.nice(0)))",
            "host, port = cfg['control']['listen'].split(':')",
            "class H(http.server.BaseHTTPRequestHandler):",
            "    def log_message(self, *a): pass",
            "    def do_GET(self):",
            "        b = json.dumps({'version': 1, 'mode': 'realtime', 'timeUs': 1, 'lagUs': 0, 'maxLagUs': 0}).encode()",
            "        self.send_response(200); self.send_header('Content-Length', str(len(b))); self.end_headers()",
            "        self.wfile.write(b)",
            "    def do_POST(self):",
            "        self.send_response(204); self.end_headers()",
            "        if self.path == '/v1/shutdown':",
            "            raise SystemExit(0)",
            "s = http.server.HTTPServer((host, int(port)), H)",
            "try:",
            "    s.serve_forever()",
            "except SystemExit:",
            "    pass",
            "");

    @Rule
    public final TemporaryFolder tmp = new TemporaryFolder();

    private Path fakeEmu() throws IOException {
        Path bin = tmp.getRoot().toPath().resolve("planck-emu");
        Files.writeString(bin, FAKE_EMU);
        assertTrue(bin.toFile().setExecutable(true));
        return bin;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    public void startsWithItsConfigWaitsForTheApiAndShutsDown() throws Exception {
        Path work = tmp.newFolder("work").toPath();
        ProcessFabricLauncher launcher = new ProcessFabricLauncher(fakeEmu(), work);
        String listen = "127.0.0.1:" + freePort();
        FabricLauncher.RunningFabric f = launcher.start(
                new FabricSpec(FabricSpec.Shape.FAT_TREE, 1_000_000_000L, listen));
        try {
            assertEquals("realtime", new EmulatorClient(f.control()).status().mode());
        } finally {
            f.close();
        }
        String cfg = Files.readString(work.resolve("fabric-1.toml"));
        assertEquals("[fabric]\ntopology = \"fattree:4\"\nlink_gbps = 1.000\nmode = \"realtime\"\nspin = false\nbatch_us = 200\nengine_rt_priority = 0\n\n[control]\n"
                     + "listen = \"" + listen + "\"\nrt_priority = 0\n", cfg);
        try {
            new EmulatorClient(f.control()).status();
            fail("the fabric still answers after close");
        } catch (org.planck.lab.emu.EmulatorException expected) {
            assertEquals(0, expected.status());
        }
    }

    @Test
    public void appendedSectionsGoIntoEveryConfig() throws Exception {
        Path work = tmp.newFolder("tail").toPath();
        ProcessFabricLauncher launcher = new ProcessFabricLauncher(fakeEmu(), work)
                .appendToConfig("[linux_hosts]\nprefix = \"ab12\"\n");
        for (FabricSpec.Shape shape : FabricSpec.Shape.values()) {
            launcher.start(new FabricSpec(shape, 50_000_000L, "127.0.0.1:" + freePort())).close();
        }
        for (String f : List.of("fabric-1.toml", "fabric-2.toml")) {
            String cfg = Files.readString(work.resolve(f));
            assertTrue(cfg, cfg.startsWith("[fabric]\n"));
            assertTrue(cfg, cfg.endsWith("rt_priority = 0\n\n[linux_hosts]\nprefix = \"ab12\"\n"));
        }
    }

    @Test
    public void theFabricRunsAtTheGivenNiceValue() throws Exception {
        Path work = tmp.newFolder("nice").toPath();
        int before = Integer.parseInt(new String(new ProcessBuilder("nice").start().getInputStream().readAllBytes())
                                              .trim());
        ProcessFabricLauncher launcher = new ProcessFabricLauncher(fakeEmu(), work, 7);
        FabricLauncher.RunningFabric f = launcher.start(
                new FabricSpec(FabricSpec.Shape.FAT_TREE, 1_000_000_000L, "127.0.0.1:" + freePort()));
        f.close();
        assertEquals(Math.min(19, before + 7),
                     Integer.parseInt(Files.readString(work.resolve("fabric-1.toml.nice")).trim()));
        try {
            new ProcessFabricLauncher(fakeEmu(), work, 20);
            fail("nice 20 is out of range");
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage().contains("niceness"));
        }
    }

    @Test
    public void singleSwitchConfigNamesSixteenHostsAndEscapesStrings() throws Exception {
        String cfg = new FabricSpec(FabricSpec.Shape.SINGLE_SWITCH, 10_000_000_000L, "a\"b").toToml();
        assertTrue(cfg, cfg.contains("topology = \"switch:16\"\n"));
        assertTrue(cfg, cfg.contains("link_gbps = 10.000\n"));
        assertTrue(cfg, cfg.contains("listen = \"a\\\"b\"\n"));
    }

    @Test
    public void aBinaryThatDiesIsReportedWithItsLog() throws Exception {
        Path work = tmp.newFolder("work2").toPath();
        Path bin = fakeEmu();
        // Same stand-in, told to fail: it exits before serving.
        Files.writeString(bin, FAKE_EMU.replace("cfg['fabric'].get('fail')", "True"));
        ProcessFabricLauncher launcher = new ProcessFabricLauncher(bin, work);
        try {
            launcher.start(new FabricSpec(FabricSpec.Shape.FAT_TREE, 1_000_000_000L, "127.0.0.1:" + freePort()));
            fail("a dead fabric must not count as started");
        } catch (IOException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("exited with 3"));
            assertTrue(e.getMessage(), e.getMessage().contains("fabric-1.log"));
        }
        assertEquals(List.of("fabric-1.log", "fabric-1.toml"),
                     Files.list(work).map(p -> p.getFileName().toString()).sorted().collect(
                             java.util.stream.Collectors.toList()));
    }
}

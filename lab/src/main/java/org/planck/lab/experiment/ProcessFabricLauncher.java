package org.planck.lab.experiment;

import org.planck.lab.emu.EmulatorClient;
import org.planck.lab.emu.EmulatorException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Runs {@code planck-emu fabric --config FILE} as a child process per run: writes the config,
 * starts the binary with its output in the run directory, waits for {@code GET /v1/status},
 * and on close asks it to shut down ({@code POST /v1/shutdown}), then ends it if it lingers.
 */
public final class ProcessFabricLauncher implements FabricLauncher {
    private static final Logger log = LoggerFactory.getLogger(ProcessFabricLauncher.class);
    private static final long START_TIMEOUT_MS = 30_000;

    private final Path binary;
    private final Path workDir;
    private final int niceness;
    private final String cpus;
    private final AtomicInteger runs = new AtomicInteger();
    private volatile String configTail = "";

    /**
     * A launcher whose fabric runs at normal priority.
     *
     * @param binary  the planck-emu executable
     * @param workDir where configs and logs go
     */
    public ProcessFabricLauncher(Path binary, Path workDir) {
        this(binary, workDir, 0);
    }

    /**
     * A launcher.
     *
     * @param binary   the planck-emu executable
     * @param workDir  where configs and logs go
     * @param niceness the fabric's nice value, 0-19: above 0 it yields the CPU to the collector and
     *                 the controller, as hardware would never take it from them (its lag behind
     *                 real time is measured and reported)
     */
    public ProcessFabricLauncher(Path binary, Path workDir, int niceness) {
        this(binary, workDir, niceness, null);
    }

    /**
     * A launcher whose fabric runs on given CPUs.
     *
     * @param binary   the planck-emu executable
     * @param workDir  where configs and logs go
     * @param niceness the fabric's nice value, 0-19
     * @param cpus     CPU list for the fabric ({@code taskset -c} syntax, e.g. "1" or "1-3"), or
     *                 null to leave its affinity as inherited
     */
    public ProcessFabricLauncher(Path binary, Path workDir, int niceness, String cpus) {
        this.binary = checkNotNull(binary, "binary");
        this.workDir = checkNotNull(workDir, "workDir");
        checkArgument(niceness >= 0 && niceness <= 19, "niceness must be in [0, 19]: %s", niceness);
        checkArgument(cpus == null || cpus.matches("[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*"),
                      "fabric CPUs must be a CPU list such as 1 or 1-3,5: %s", cpus);
        this.niceness = niceness;
        this.cpus = cpus;
    }

    /**
     * TOML sections appended to every fabric config this launcher writes, e.g. the
     * {@code [linux_hosts]} section that makes real Linux hosts the fabric's endpoints.
     *
     * @param toml whole TOML sections
     * @return this launcher
     */
    public ProcessFabricLauncher appendToConfig(String toml) {
        configTail = "\n" + checkNotNull(toml, "toml");
        return this;
    }

    @Override
    public RunningFabric start(FabricSpec spec) throws IOException {
        int n = runs.incrementAndGet();
        Files.createDirectories(workDir);
        Path config = workDir.resolve("fabric-" + n + ".toml");
        Files.writeString(config, spec.toToml() + configTail);
        Path out = workDir.resolve("fabric-" + n + ".log");
        List<String> command = new ArrayList<>();
        if (cpus != null) {
            command.addAll(List.of("taskset", "-c", cpus));
        }
        if (niceness > 0) {
            command.addAll(List.of("nice", "-n", Integer.toString(niceness)));
        }
        command.addAll(List.of(binary.toString(), "fabric", "--config", config.toString()));
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        URI control = URI.create("http://" + spec.controlListen());
        EmulatorClient client = new EmulatorClient(control);
        long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
        while (true) {
            if (!p.isAlive()) {
                throw new IOException("planck-emu exited with " + p.exitValue() + " (see " + out + ")");
            }
            try {
                client.status();
                break;
            } catch (EmulatorException e) {
                if (System.currentTimeMillis() > deadline) {
                    p.destroyForcibly();
                    throw new IOException("planck-emu did not answer on " + control + " within "
                                          + START_TIMEOUT_MS + " ms (see " + out + ")");
                }
                sleep(50);
            }
        }
        return new RunningFabric() {
            @Override
            public URI control() {
                return control;
            }

            @Override
            public void close() {
                try {
                    client.shutdown();
                } catch (EmulatorException e) {
                    log.debug("shutdown request failed: {}", e.getMessage());
                }
                try {
                    if (!p.waitFor(5, TimeUnit.SECONDS)) {
                        p.destroy();
                        if (!p.waitFor(2, TimeUnit.SECONDS)) {
                            p.destroyForcibly().waitFor(2, TimeUnit.SECONDS);
                        }
                    }
                } catch (InterruptedException e) {
                    p.destroyForcibly();
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

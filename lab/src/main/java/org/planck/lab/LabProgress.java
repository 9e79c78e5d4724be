package org.planck.lab;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.io.PrintStream;

/**
 * The experiment's progress: a bar on a terminal, one line per stage (each run, the warm-up)
 * when the output is a file or a pipe, so CI logs stay readable.
 */
abstract class LabProgress implements AutoCloseable {

    /**
     * The progress display for this process's standard output.
     *
     * @param total flows the experiment will complete
     * @return a bar on a terminal, stage lines otherwise
     */
    static LabProgress forStdout(long total) {
        return System.console() != null ? new Bar(total) : new Lines(total, System.out);
    }

    /**
     * Names the stage now under way.
     *
     * @param stage e.g. "stride(8) / PlanckTE"
     */
    abstract void stage(String stage);

    /** One flow finished. */
    abstract void step();

    /**
     * Raises the expected total.
     *
     * @param total flows
     */
    abstract void maxHint(long total);

    @Override
    public abstract void close();

    private static final class Bar extends LabProgress {
        private final ProgressBar bar;

        Bar(long total) {
            bar = new ProgressBarBuilder().setTaskName("lab").setInitialMax(total)
                    .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(500).build();
        }

        @Override
        void stage(String stage) {
            bar.setExtraMessage(stage);
        }

        @Override
        void step() {
            bar.step();
        }

        @Override
        void maxHint(long total) {
            bar.maxHint(total);
        }

        @Override
        public void close() {
            bar.close();
        }
    }

    /** One line when a stage begins, with the flows finished so far. */
    static final class Lines extends LabProgress {
        private final PrintStream out;
        private final long started = System.nanoTime();
        private long total;
        private long done;
        private int stages;

        Lines(long total, PrintStream out) {
            this.total = total;
            this.out = out;
        }

        @Override
        synchronized void stage(String stage) {
            stages++;
            out.printf("lab: [%d] %s (%d/%d flows done, %.0f s)%n", stages, stage, done, total,
                       (System.nanoTime() - started) / 1e9);
            out.flush();
        }

        @Override
        synchronized void step() {
            done++;
        }

        @Override
        synchronized void maxHint(long newTotal) {
            total = newTotal;
        }

        @Override
        public synchronized void close() {
            out.printf("lab: done (%d/%d flows, %.0f s)%n", done, total, (System.nanoTime() - started) / 1e9);
            out.flush();
        }
    }
}

package org.planck.lab.experiment;

/**
 * Told as an experiment advances (drives the progress bar).
 */
public interface RunProgress {
    /** Nothing reported. */
    RunProgress NONE = new RunProgress() {
        @Override
        public void runStarted(String name, int flows) {
        }

        @Override
        public void flowFinished() {
        }
    };

    /**
     * A run begins.
     *
     * @param name  e.g. "stride(8) / PlanckTE"
     * @param flows flows it will complete
     */
    void runStarted(String name, int flows);

    /** One flow finished. */
    void flowFinished();
}

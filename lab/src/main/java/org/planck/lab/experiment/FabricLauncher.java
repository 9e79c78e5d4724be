package org.planck.lab.experiment;

import java.io.IOException;
import java.net.URI;

/**
 * Starts a fabric for one run and stops it afterwards.
 */
public interface FabricLauncher {

    /** A fabric that is up and answering its control API. */
    interface RunningFabric extends AutoCloseable {
        /**
         * Control API address.
         *
         * @return base URI
         */
        URI control();

        /** Stops the fabric and releases what it held. */
        @Override
        void close();
    }

    /**
     * Starts a fabric and waits until its control API answers.
     *
     * @param spec what to start
     * @return the running fabric
     * @throws IOException if it cannot be started or does not come up in time
     */
    RunningFabric start(FabricSpec spec) throws IOException;
}

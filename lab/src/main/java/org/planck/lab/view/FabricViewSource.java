package org.planck.lab.view;

import org.onosproject.net.ConnectPoint;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.te.Reroute;

import java.util.List;
import java.util.Set;

/** What the live fabric view reads from a running lab controller. */
public interface FabricViewSource {
    /** TE mode of the run, e.g. "PLANCK". */
    String mode();

    /** What the run is, for people, e.g. "stride(8) / PlanckTE"; the mode by default. */
    default String run() {
        return mode();
    }

    /** The fabric: switches, both directions of each link, hosts. */
    FabricGraph graph();

    /** Load-view utilisation of an egress port, as a fraction of its capacity. */
    double utilisation(ConnectPoint port);

    /** Ports the TE loop currently holds congested. */
    Set<ConnectPoint> congestedPorts();

    /**
     * Flow moves decided so far, oldest first.
     *
     * @return moves
     */
    List<Reroute> moves();

    /** Loop latencies (sample to applied, µs) of the moves applied so far. */
    long[] loopLatenciesUs();
}

package org.planck.lab.view;

import org.onosproject.net.ConnectPoint;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.te.Reroute;
import org.planck.lab.control.LabController;
import org.planck.lab.control.LoopLatencyLog;
import org.planck.lab.sched.LoopThreads;

import java.util.List;
import java.util.Set;

/**
 * The live view's source for a {@link LabController} and its loop-latency log. The view's HTTP
 * threads run at normal priority and both objects' locks are taken by the loop's real-time
 * threads too, so every read is made at the loop's priority ({@link LoopThreads#atLoopPriority}).
 */
public final class LabFabricView implements FabricViewSource {
    private final LabController controller;
    private final LoopLatencyLog latencies;
    private final String run;

    /**
     * View of one controller.
     *
     * @param controller installed lab controller
     * @param latencies  its loop-latency log
     * @param run        what the run is, e.g. "stride(8) / PlanckTE"
     */
    public LabFabricView(LabController controller, LoopLatencyLog latencies, String run) {
        this.controller = controller;
        this.latencies = latencies;
        this.run = run;
    }

    @Override
    public String run() {
        return run;
    }

    @Override
    public String mode() {
        return controller.mode().name();
    }

    @Override
    public FabricGraph graph() {
        return LoopThreads.atLoopPriority(() -> controller.plan().graph());
    }

    @Override
    public double utilisation(ConnectPoint port) {
        return LoopThreads.atLoopPriority(() -> controller.utilisation(port));
    }

    @Override
    public Set<ConnectPoint> congestedPorts() {
        return LoopThreads.atLoopPriority(controller::congestedPorts);
    }

    @Override
    public List<Reroute> moves() {
        return LoopThreads.atLoopPriority(controller::decidedMoves);
    }

    @Override
    public long[] loopLatenciesUs() {
        return LoopThreads.atLoopPriority(() -> latencies.applied(LoopLatencyLog.Entry::sampleToAppliedUs)).values();
    }
}

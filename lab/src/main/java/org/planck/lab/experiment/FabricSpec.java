package org.planck.lab.experiment;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * What fabric a run needs: its shape, link rate and control address. Written as the
 * {@code planck-emu fabric --config} file.
 */
public final class FabricSpec {
    /** Topology shapes. */
    public enum Shape {
        /** k=4 fat tree: 20 switches, 16 hosts. */
        FAT_TREE,
        /** One non-blocking switch with a port per host. */
        SINGLE_SWITCH
    }

    /** Fat-tree arity of the experiment. */
    public static final int K = 4;
    /** Hosts of the experiment: k^3/4. */
    public static final int HOSTS = K * K * K / 4;

    private final Shape shape;
    private final long linkBps;
    private final String controlListen;

    /**
     * A fabric.
     *
     * @param shape         topology
     * @param linkBps       rate of every link and host port
     * @param controlListen control API address, host:port
     */
    public FabricSpec(Shape shape, long linkBps, String controlListen) {
        this.shape = checkNotNull(shape, "shape");
        checkArgument(linkBps > 0, "link rate must be positive");
        this.linkBps = linkBps;
        this.controlListen = checkNotNull(controlListen, "controlListen");
    }

    public Shape shape() {
        return shape;
    }

    public long linkBps() {
        return linkBps;
    }

    public String controlListen() {
        return controlListen;
    }

    /**
     * The fabric config file's content.
     *
     * @param mapper mapper
     * @return JSON object
     */
    public ObjectNode toConfig(ObjectMapper mapper) {
        ObjectNode root = mapper.createObjectNode();
        ObjectNode topo = root.putObject("topology");
        if (shape == Shape.FAT_TREE) {
            topo.put("kind", "fat_tree");
            topo.put("k", K);
        } else {
            topo.put("kind", "single_switch");
            topo.put("hosts", HOSTS);
        }
        topo.put("link_bps", linkBps);
        root.putObject("clock").put("mode", "realtime");
        root.putObject("control").put("listen", controlListen);
        return root;
    }
}

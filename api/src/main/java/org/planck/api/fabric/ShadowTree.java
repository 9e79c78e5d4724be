package org.planck.api.fabric;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * All paths toward one destination host on one shadow MAC: a tree rooted at the destination's
 * edge switch in which every member switch has exactly one next hop. Because a shadow MAC is
 * shared by all sources, a switch matches {@code eth_dst == shadowMac} once and so can only
 * forward it one way; a tree is the shape that makes that consistent.
 */
public final class ShadowTree {
    private final ShadowPathId id;
    private final MacAddress shadowMac;
    private final FabricHost destination;
    private final Map<DeviceId, FabricLink> nextLinks;
    private final Set<DeviceId> sources;

    private ShadowTree(ShadowPathId id, MacAddress shadowMac, FabricHost destination,
                       Map<DeviceId, FabricLink> nextLinks, Collection<DeviceId> sources) {
        this.id = checkNotNull(id, "id");
        this.shadowMac = checkNotNull(shadowMac, "shadowMac");
        this.destination = checkNotNull(destination, "destination");
        checkArgument(id.destination().equals(destination.mac()), "id %s is not for host %s", id, destination);
        this.nextLinks = ImmutableMap.copyOf(nextLinks);
        this.sources = ImmutableSet.copyOf(sources);
        checkArgument(!this.nextLinks.containsKey(destination.edge()), "the root has no next link");
        for (Map.Entry<DeviceId, FabricLink> e : this.nextLinks.entrySet()) {
            checkArgument(e.getValue().srcDevice().equals(e.getKey()), "next link %s does not leave %s",
                          e.getValue(), e.getKey());
        }
        for (DeviceId s : this.sources) {
            checkArgument(s.equals(destination.edge()) || this.nextLinks.containsKey(s),
                          "source %s is not in the tree", s);
        }
    }

    /**
     * Creates a tree. The next links must form a tree rooted at the destination's edge switch
     * (the planner guarantees it; {@link #path(DeviceId)} guards against cycles).
     *
     * @param id          (destination, index)
     * @param shadowMac   shadow MAC of the id
     * @param destination destination host
     * @param nextLinks   for every non-root member switch, the link toward the root
     * @param sources     edge switches whose traffic the tree carries (members, or the root)
     * @return the tree
     */
    public static ShadowTree of(ShadowPathId id, MacAddress shadowMac, FabricHost destination,
                                Map<DeviceId, FabricLink> nextLinks, Collection<DeviceId> sources) {
        return new ShadowTree(id, shadowMac, destination, nextLinks, sources);
    }

    public ShadowPathId id() {
        return id;
    }

    public int index() {
        return id.index();
    }

    public MacAddress shadowMac() {
        return shadowMac;
    }

    public FabricHost destination() {
        return destination;
    }

    /**
     * The root: the destination's edge switch.
     *
     * @return root switch
     */
    public DeviceId root() {
        return destination.edge();
    }

    /**
     * For every member switch other than the root, the link it forwards the shadow MAC on.
     *
     * @return switch to next link
     */
    public Map<DeviceId, FabricLink> nextLinks() {
        return nextLinks;
    }

    /**
     * The egress port a switch forwards this tree's shadow MAC on: the next link's port, or the
     * host port at the root.
     *
     * @param device a switch
     * @return port, or empty if the switch is not in the tree
     */
    public Optional<PortNumber> outPort(DeviceId device) {
        if (device.equals(destination.edge())) {
            return Optional.of(destination.port());
        }
        FabricLink l = nextLinks.get(device);
        return l == null ? Optional.empty() : Optional.of(l.srcPort());
    }

    /**
     * Edge switches whose hosts can reach the destination on this tree.
     *
     * @return sources
     */
    public Set<DeviceId> sources() {
        return sources;
    }

    /**
     * Whether the tree forwards over a link.
     *
     * @param link a link
     * @return true if some member switch uses it as its next link
     */
    public boolean uses(FabricLink link) {
        return link.equals(nextLinks.get(link.srcDevice()));
    }

    /**
     * The path from a source switch to the destination host.
     *
     * @param source a source switch
     * @return the path, or empty if the switch is not in the tree
     * @throws IllegalStateException if the next links loop
     */
    public Optional<ShadowPath> path(DeviceId source) {
        if (!source.equals(destination.edge()) && !nextLinks.containsKey(source)) {
            return Optional.empty();
        }
        List<PathHop> hops = new ArrayList<>();
        DeviceId at = source;
        while (!at.equals(destination.edge())) {
            FabricLink l = nextLinks.get(at);
            if (l == null || hops.size() > nextLinks.size()) {
                throw new IllegalStateException("tree " + id + " does not lead from " + source + " to its root");
            }
            hops.add(PathHop.of(at, l.srcPort()));
            at = l.dstDevice();
        }
        hops.add(PathHop.of(at, destination.port()));
        return Optional.of(ShadowPath.of(id, shadowMac, hops));
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ShadowTree)) {
            return false;
        }
        ShadowTree t = (ShadowTree) o;
        return id.equals(t.id) && shadowMac.equals(t.shadowMac) && destination.equals(t.destination)
                && nextLinks.equals(t.nextLinks) && sources.equals(t.sources);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, shadowMac, destination, nextLinks, sources);
    }

    @Override
    public String toString() {
        return "ShadowTree{" + id + ", " + shadowMac + ", switches=" + (nextLinks.size() + 1) + "}";
    }
}

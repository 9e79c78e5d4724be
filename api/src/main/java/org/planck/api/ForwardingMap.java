package org.planck.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;

import java.util.List;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A collector's forwarding map (docs/protocol/forwarding-map-v1.md): for every switch it
 * serves, destination MAC to egress port, port capacities, RSPAN VLAN and mirror port.
 */
public final class ForwardingMap {
    /** Schema version of the pushed and served JSON. */
    public static final int VERSION = 1;

    private final String collectorId;
    private final long generation;
    private final List<SwitchForwarding> switches;

    /**
     * Creates a map.
     *
     * @param collectorId collector the map is for
     * @param generation  increases with every change of the map
     * @param switches    one entry per served switch
     */
    public ForwardingMap(String collectorId, long generation, List<SwitchForwarding> switches) {
        checkArgument(generation >= 0, "generation must be >= 0");
        this.collectorId = checkNotNull(collectorId);
        this.generation = generation;
        this.switches = ImmutableList.copyOf(switches);
    }

    public String collectorId() {
        return collectorId;
    }

    public long generation() {
        return generation;
    }

    public List<SwitchForwarding> switches() {
        return switches;
    }

    /**
     * The same map under another generation number.
     *
     * @param newGeneration generation
     * @return a copy with the generation replaced
     */
    public ForwardingMap withGeneration(long newGeneration) {
        return new ForwardingMap(collectorId, newGeneration, switches);
    }

    /**
     * Whether two maps say the same thing, whatever their generations.
     *
     * @param other another map
     * @return true if collector and switch entries are equal
     */
    public boolean sameContent(ForwardingMap other) {
        return other != null && collectorId.equals(other.collectorId) && switches.equals(other.switches);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ForwardingMap)) {
            return false;
        }
        ForwardingMap that = (ForwardingMap) o;
        return generation == that.generation && sameContent(that);
    }

    @Override
    public int hashCode() {
        return Objects.hash(collectorId, generation, switches);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("collector", collectorId).add("generation", generation)
                .add("switches", switches).toString();
    }
}

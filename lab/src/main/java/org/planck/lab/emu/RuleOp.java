package org.planck.lab.emu;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableSortedMap;
import org.onosproject.net.DeviceId;

import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One operation of a {@code POST /v1/rules} batch (docs/protocol/emulator-control-v1.md): add (or
 * replace) or delete the rule identified by (switch, priority, match).
 */
public final class RuleOp {
    /** What the operation does. */
    public enum Kind { ADD, DELETE }

    private final Kind kind;
    private final DeviceId device;
    private final int priority;
    private final Map<String, Object> match;
    private final String setEthDst;
    private final long output;

    private RuleOp(Kind kind, DeviceId device, int priority, Map<String, Object> match,
                   String setEthDst, long output) {
        this.kind = checkNotNull(kind, "kind");
        this.device = checkNotNull(device, "device");
        checkArgument(priority >= 0 && priority <= 65535, "priority out of range: %s", priority);
        this.priority = priority;
        checkArgument(!match.isEmpty(), "a rule needs at least one match field");
        this.match = ImmutableSortedMap.copyOf(match);
        this.setEthDst = setEthDst;
        this.output = output;
    }

    /**
     * An add (or modify) operation.
     *
     * @param device    switch
     * @param priority  priority
     * @param match     match fields by contract name ({@code ethDst}, {@code ipSrc}, ...)
     * @param setEthDst MAC written before output, or null
     * @param output    output port, positive
     * @return operation
     */
    public static RuleOp add(DeviceId device, int priority, Map<String, Object> match, String setEthDst,
                             long output) {
        checkArgument(output > 0, "output port must be positive: %s", output);
        return new RuleOp(Kind.ADD, device, priority, match, setEthDst, output);
    }

    /**
     * A delete operation.
     *
     * @param device   switch
     * @param priority priority
     * @param match    match fields
     * @return operation
     */
    public static RuleOp delete(DeviceId device, int priority, Map<String, Object> match) {
        return new RuleOp(Kind.DELETE, device, priority, match, null, 0);
    }

    public Kind kind() {
        return kind;
    }

    public DeviceId device() {
        return device;
    }

    public int priority() {
        return priority;
    }

    /**
     * Match fields, sorted by name.
     *
     * @return match
     */
    public Map<String, Object> match() {
        return match;
    }

    /**
     * The rewritten destination MAC of an add.
     *
     * @return MAC text, or null
     */
    public String setEthDst() {
        return setEthDst;
    }

    /**
     * Output port of an add.
     *
     * @return port, or empty for deletes
     */
    public OptionalLong output() {
        return kind == Kind.ADD ? OptionalLong.of(output) : OptionalLong.empty();
    }

    /**
     * The rule's identity on the emulator: switch, priority and canonical match text. Counter
     * entries of {@code GET /v1/counters} map back to rules by the same key.
     *
     * @return key
     */
    public String ruleKey() {
        return ruleKey(device.toString(), priority, match);
    }

    /**
     * The canonical identity of a rule from its parts.
     *
     * @param device   switch id text
     * @param priority priority
     * @param match    match fields (any order; MAC and IP text compared in lower case)
     * @return key
     */
    public static String ruleKey(String device, int priority, Map<String, ?> match) {
        StringBuilder sb = new StringBuilder(device).append('|').append(priority);
        ImmutableSortedMap.copyOf(match).forEach(
                (k, v) -> sb.append('|').append(k).append('=').append(String.valueOf(v).toLowerCase()));
        return sb.toString();
    }

    /**
     * The JSON of the operation.
     *
     * @param mapper mapper
     * @return op object
     */
    public ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode n = mapper.createObjectNode();
        n.put("op", kind == Kind.ADD ? "add" : "delete");
        n.put("switch", device.toString());
        n.put("priority", priority);
        ObjectNode m = n.putObject("match");
        match.forEach((k, v) -> {
            if (v instanceof Number) {
                m.put(k, ((Number) v).longValue());
            } else {
                m.put(k, String.valueOf(v));
            }
        });
        if (kind == Kind.ADD) {
            ObjectNode a = n.putObject("actions");
            if (setEthDst != null) {
                a.put("setEthDst", setEthDst);
            }
            a.put("output", output);
        }
        return n;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof RuleOp)) {
            return false;
        }
        RuleOp r = (RuleOp) o;
        return kind == r.kind && priority == r.priority && output == r.output && device.equals(r.device)
                && match.equals(r.match) && Objects.equals(setEthDst, r.setEthDst);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, device, priority, match, setEthDst, output);
    }

    @Override
    public String toString() {
        return kind + "@" + device + "/" + priority + match
                + (kind == Kind.ADD ? " -> " + (setEthDst != null ? "set " + setEthDst + ", " : "") + "out "
                + output : "");
    }
}

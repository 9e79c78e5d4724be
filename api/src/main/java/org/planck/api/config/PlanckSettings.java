package org.planck.api.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import org.onlab.packet.IpAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One validated, immutable snapshot of Planck's configuration (the "planck" netcfg key of
 * the application). Parsing and validation are the same step: {@link #parse(JsonNode)}
 * either returns a complete snapshot or throws {@link InvalidConfigException} naming the
 * first offending field.
 */
public final class PlanckSettings {

    public static final String COLLECTORS = "collectors";
    public static final String CONGESTION_THRESHOLD_PCT = "congestionThresholdPct";
    public static final String HYSTERESIS_PCT = "hysteresisPct";
    public static final String SHADOW_PATHS_PER_DESTINATION = "shadowPathsPerDestination";
    public static final String TE_ENABLED = "teEnabled";
    public static final String REROUTE_DAMPING_MS = "rerouteDampingMs";
    public static final String FLOW_REPORT_INTERVAL_MS = "flowReportIntervalMs";
    public static final String ELEPHANT_THRESHOLD_PCT = "elephantThresholdPct";
    public static final String CONGESTION_SIGNAL = "congestionSignal";
    public static final String INT_QUEUE_THRESHOLD = "intQueueThreshold";
    public static final String INT_QUEUE_HYSTERESIS = "intQueueHysteresis";

    public static final String ID = "id";
    public static final String ADDRESS = "address";
    public static final String CONTROL_PORT = "controlPort";
    public static final String SWITCHES = "switches";
    public static final String DEVICE = "device";
    public static final String MIRROR_PORT = "mirrorPort";
    public static final String RSPAN_VLAN = "rspanVlan";
    public static final String BRIDGE = "bridge";

    public static final double DEFAULT_CONGESTION_THRESHOLD_PCT = 80.0;
    public static final double DEFAULT_HYSTERESIS_PCT = 5.0;
    public static final int DEFAULT_SHADOW_PATHS_PER_DESTINATION = 4;
    public static final boolean DEFAULT_TE_ENABLED = true;
    public static final long DEFAULT_REROUTE_DAMPING_MS = 100;
    public static final int DEFAULT_FLOW_REPORT_INTERVAL_MS = 5;
    /**
     * A flow measured at this % of its host link is planned with its demand (fair share): 3 %,
     * not Hedera's 10 %. At Planck's time scale a flow's first samples come from its slow start,
     * and TE must see it as the elephant it is becoming within its first milliseconds (on the
     * lab's 1 Gb/s fabric, 10 % recognised colliding 10 MiB flows tens of ms into their 84 ms
     * lives; see docs/lab.md).
     */
    public static final double DEFAULT_ELEPHANT_THRESHOLD_PCT = 3.0;
    public static final CongestionSignal DEFAULT_CONGESTION_SIGNAL = CongestionSignal.MIRRORS;
    public static final long DEFAULT_INT_QUEUE_THRESHOLD = 1000;
    /** Largest INT v0.5/v1/v2 queue occupancy (a 24-bit field). */
    public static final long MAX_INT_QUEUE_OCCUPANCY = 0xffffff;

    /** Upper bound on k: every path costs a shadow MAC and a rule on every switch of its tree. */
    public static final int MAX_SHADOW_PATHS_PER_DESTINATION = 64;
    public static final long MAX_REROUTE_DAMPING_MS = 60_000;
    /** Largest physical OpenFlow port number (0xffffff00 and above are reserved ports). */
    public static final long MAX_PHYSICAL_PORT = 0xffffff00L;

    private static final Set<String> TOP_FIELDS = ImmutableSet.of(COLLECTORS, CONGESTION_THRESHOLD_PCT,
            HYSTERESIS_PCT, SHADOW_PATHS_PER_DESTINATION, TE_ENABLED, REROUTE_DAMPING_MS,
            FLOW_REPORT_INTERVAL_MS, ELEPHANT_THRESHOLD_PCT, CONGESTION_SIGNAL, INT_QUEUE_THRESHOLD,
            INT_QUEUE_HYSTERESIS);
    /** Basic-auth user and password the collector's control endpoint requires (optional, together). */
    public static final String CONTROL_USERNAME = "controlUsername";
    public static final String CONTROL_PASSWORD = "controlPassword";
    private static final Set<String> COLLECTOR_FIELDS = ImmutableSet.of(ID, ADDRESS, CONTROL_PORT, SWITCHES,
            CONTROL_USERNAME, CONTROL_PASSWORD);
    private static final Set<String> SWITCH_FIELDS = ImmutableSet.of(DEVICE, MIRROR_PORT, RSPAN_VLAN, BRIDGE);
    private static final Pattern COLLECTOR_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern DEVICE_ID = Pattern.compile("[a-z][a-z0-9]*:\\S+");
    private static final Pattern BRIDGE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,15}");

    private final double congestionThresholdPct;
    private final double hysteresisPct;
    private final int shadowPathsPerDestination;
    private final boolean teEnabled;
    private final long rerouteDampingMs;
    private final int flowReportIntervalMs;
    private final double elephantThresholdPct;
    private final CongestionSignal congestionSignal;
    private final long intQueueThreshold;
    private final long intQueueHysteresis;
    private final List<CollectorConfig> collectors;
    private final ObjectNode json;

    private PlanckSettings(double congestionThresholdPct, double hysteresisPct, int shadowPathsPerDestination,
                           boolean teEnabled, long rerouteDampingMs, int flowReportIntervalMs,
                           double elephantThresholdPct, CongestionSignal congestionSignal, long intQueueThreshold,
                           long intQueueHysteresis, List<CollectorConfig> collectors, ObjectNode json) {
        this.congestionThresholdPct = congestionThresholdPct;
        this.hysteresisPct = hysteresisPct;
        this.shadowPathsPerDestination = shadowPathsPerDestination;
        this.teEnabled = teEnabled;
        this.rerouteDampingMs = rerouteDampingMs;
        this.flowReportIntervalMs = flowReportIntervalMs;
        this.elephantThresholdPct = elephantThresholdPct;
        this.congestionSignal = congestionSignal;
        this.intQueueThreshold = intQueueThreshold;
        this.intQueueHysteresis = intQueueHysteresis;
        this.collectors = ImmutableList.copyOf(collectors);
        this.json = json;
    }

    /**
     * Parses and validates a configuration.
     *
     * @param node the JSON object under the application's "planck" key
     * @return the validated settings
     * @throws InvalidConfigException naming the offending field if anything is wrong
     */
    public static PlanckSettings parse(JsonNode node) {
        if (node == null || !node.isObject()) {
            throw new InvalidConfigException("configuration must be a JSON object");
        }
        onlyFields(node, TOP_FIELDS, "");
        double threshold = number(node, CONGESTION_THRESHOLD_PCT, DEFAULT_CONGESTION_THRESHOLD_PCT);
        if (!(threshold > 0 && threshold <= 100)) {
            throw new InvalidConfigException(CONGESTION_THRESHOLD_PCT + " must be in (0, 100], got " + threshold);
        }
        double hysteresis = number(node, HYSTERESIS_PCT, DEFAULT_HYSTERESIS_PCT);
        if (!(hysteresis >= 0 && hysteresis < threshold)) {
            throw new InvalidConfigException(HYSTERESIS_PCT + " must be in [0, " + CONGESTION_THRESHOLD_PCT
                    + "), got " + hysteresis);
        }
        int k = (int) integer(node, SHADOW_PATHS_PER_DESTINATION, DEFAULT_SHADOW_PATHS_PER_DESTINATION,
                1, MAX_SHADOW_PATHS_PER_DESTINATION, "");
        boolean te = bool(node, TE_ENABLED, DEFAULT_TE_ENABLED);
        long damping = integer(node, REROUTE_DAMPING_MS, DEFAULT_REROUTE_DAMPING_MS, 0, MAX_REROUTE_DAMPING_MS, "");
        int report = (int) integer(node, FLOW_REPORT_INTERVAL_MS, DEFAULT_FLOW_REPORT_INTERVAL_MS, 1, 1000, "");
        double elephant = number(node, ELEPHANT_THRESHOLD_PCT, DEFAULT_ELEPHANT_THRESHOLD_PCT);
        if (!(elephant >= 0 && elephant <= 100)) {
            throw new InvalidConfigException(ELEPHANT_THRESHOLD_PCT + " must be in [0, 100], got " + elephant);
        }
        CongestionSignal signal = congestionSignal(node);
        long queueThreshold = integer(node, INT_QUEUE_THRESHOLD, DEFAULT_INT_QUEUE_THRESHOLD, 1,
                MAX_INT_QUEUE_OCCUPANCY, "");
        // Default hysteresis: a fifth of the threshold, so a threshold alone is a complete setting.
        long queueHysteresis = integer(node, INT_QUEUE_HYSTERESIS, queueThreshold / 5, 0, queueThreshold - 1, "");

        List<CollectorConfig> collectors = new ArrayList<>();
        JsonNode list = node.get(COLLECTORS);
        if (list != null && !list.isNull()) {
            if (!list.isArray()) {
                throw new InvalidConfigException(COLLECTORS + " must be an array");
            }
            Set<String> ids = new HashSet<>();
            Map<DeviceId, String> servedBy = new HashMap<>();
            for (int i = 0; i < list.size(); i++) {
                CollectorConfig c = collector(list.get(i), COLLECTORS + "[" + i + "]");
                if (!ids.add(c.id())) {
                    throw new InvalidConfigException(COLLECTORS + "[" + i + "]." + ID + ": duplicate collector id "
                            + c.id());
                }
                for (ServedSwitch s : c.switches()) {
                    String other = servedBy.putIfAbsent(s.deviceId(), c.id());
                    if (other != null) {
                        throw new InvalidConfigException("device " + s.deviceId() + " is served by both collector "
                                + other + " and collector " + c.id());
                    }
                }
                collectors.add(c);
            }
        }
        return new PlanckSettings(threshold, hysteresis, k, te, damping, report, elephant, signal, queueThreshold,
                                  queueHysteresis, collectors, node.deepCopy());
    }

    private static CongestionSignal congestionSignal(JsonNode node) {
        JsonNode v = node.get(CONGESTION_SIGNAL);
        if (v == null) {
            return DEFAULT_CONGESTION_SIGNAL;
        }
        String expected = CONGESTION_SIGNAL + " must be one of \"mirrors\", \"int\", \"both\"";
        if (!v.isTextual()) {
            throw new InvalidConfigException(expected);
        }
        return CongestionSignal.fromConfig(v.asText()).orElseThrow(
                () -> new InvalidConfigException(expected + ", got \"" + v.asText() + "\""));
    }

    private static CollectorConfig collector(JsonNode n, String where) {
        if (n == null || !n.isObject()) {
            throw new InvalidConfigException(where + " must be an object");
        }
        onlyFields(n, COLLECTOR_FIELDS, where + ".");
        String id = string(n, ID, where);
        if (!COLLECTOR_ID.matcher(id).matches()) {
            throw new InvalidConfigException(where + "." + ID + " must be 1-64 characters of [A-Za-z0-9._-], got \""
                    + id + "\"");
        }
        String addressText = string(n, ADDRESS, where);
        IpAddress address;
        try {
            address = IpAddress.valueOf(addressText);
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigException(where + "." + ADDRESS + " is not an IP address: \"" + addressText + "\"");
        }
        int port = (int) integer(n, CONTROL_PORT, null, 1, 65535, where + ".");
        List<ServedSwitch> switches = new ArrayList<>();
        JsonNode list = n.get(SWITCHES);
        if (list == null || !list.isArray()) {
            throw new InvalidConfigException(where + "." + SWITCHES + " must be an array");
        }
        Set<VlanId> vlans = new HashSet<>();
        Set<DeviceId> devices = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String sw = where + "." + SWITCHES + "[" + i + "]";
            ServedSwitch s = servedSwitch(list.get(i), sw);
            if (!devices.add(s.deviceId())) {
                throw new InvalidConfigException(sw + "." + DEVICE + ": device " + s.deviceId() + " listed twice");
            }
            if (!vlans.add(s.rspanVlan())) {
                throw new InvalidConfigException(sw + "." + RSPAN_VLAN + ": VLAN " + s.rspanVlan()
                        + " already identifies another switch of collector " + id);
            }
            switches.add(s);
        }
        String user = n.has(CONTROL_USERNAME) ? string(n, CONTROL_USERNAME, where) : null;
        String password = n.has(CONTROL_PASSWORD) ? string(n, CONTROL_PASSWORD, where) : null;
        if ((user == null) != (password == null)) {
            throw new InvalidConfigException(where + ": " + CONTROL_USERNAME + " and " + CONTROL_PASSWORD
                    + " go together");
        }
        if (user != null && (user.isEmpty() || user.contains(":") || password.isEmpty())) {
            throw new InvalidConfigException(where + "." + CONTROL_USERNAME
                    + " must be non-empty without ':' and " + CONTROL_PASSWORD + " non-empty");
        }
        return new CollectorConfig(id, address, port, switches, user, password);
    }

    private static ServedSwitch servedSwitch(JsonNode n, String where) {
        if (n == null || !n.isObject()) {
            throw new InvalidConfigException(where + " must be an object");
        }
        onlyFields(n, SWITCH_FIELDS, where + ".");
        String device = string(n, DEVICE, where);
        if (!DEVICE_ID.matcher(device).matches()) {
            throw new InvalidConfigException(where + "." + DEVICE + " is not a device id (scheme:id): \""
                    + device + "\"");
        }
        long mirrorPort = integer(n, MIRROR_PORT, null, 1, MAX_PHYSICAL_PORT - 1, where + ".");
        long vlan = integer(n, RSPAN_VLAN, null, 1, 4094, where + ".");
        String bridge = null;
        if (n.has(BRIDGE)) {
            bridge = string(n, BRIDGE, where);
            if (!BRIDGE_NAME.matcher(bridge).matches()) {
                throw new InvalidConfigException(where + "." + BRIDGE
                        + " must be 1-15 characters of [A-Za-z0-9._-], got \"" + bridge + "\"");
            }
        }
        DeviceId deviceId;
        try {
            deviceId = DeviceId.deviceId(device);
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigException(where + "." + DEVICE + " is not a device id: " + e.getMessage());
        }
        return new ServedSwitch(deviceId, PortNumber.portNumber(mirrorPort), VlanId.vlanId((short) vlan), bridge);
    }

    private static void onlyFields(JsonNode n, Set<String> allowed, String where) {
        Iterator<String> names = n.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw new InvalidConfigException("unknown field " + where + name + " (allowed: "
                        + String.join(", ", allowed) + ")");
            }
        }
    }

    private static String string(JsonNode n, String field, String where) {
        JsonNode v = n.get(field);
        if (v == null || !v.isTextual()) {
            throw new InvalidConfigException(where + "." + field + " must be a string");
        }
        return v.asText();
    }

    private static double number(JsonNode n, String field, double dflt) {
        JsonNode v = n.get(field);
        if (v == null) {
            return dflt;
        }
        if (!v.isNumber()) {
            throw new InvalidConfigException(field + " must be a number");
        }
        return v.asDouble();
    }

    private static boolean bool(JsonNode n, String field, boolean dflt) {
        JsonNode v = n.get(field);
        if (v == null) {
            return dflt;
        }
        if (!v.isBoolean()) {
            throw new InvalidConfigException(field + " must be true or false");
        }
        return v.asBoolean();
    }

    private static long integer(JsonNode n, String field, Long dflt, long min, long max, String where) {
        JsonNode v = n.get(field);
        if (v == null) {
            if (dflt == null) {
                throw new InvalidConfigException(where + field + " is required");
            }
            return dflt;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new InvalidConfigException(where + field + " must be an integer");
        }
        long value = v.asLong();
        if (value < min || value > max) {
            throw new InvalidConfigException(where + field + " must be in [" + min + ", " + max + "], got " + value);
        }
        return value;
    }

    private static long integer(JsonNode n, String field, long dflt, long min, long max, String where) {
        return integer(n, field, Long.valueOf(dflt), min, max, where);
    }

    /**
     * Percentage of a port's capacity above which the port is congested.
     *
     * @return threshold in (0, 100]
     */
    public double congestionThresholdPct() {
        return congestionThresholdPct;
    }

    /**
     * Congestion clears below threshold minus this many percentage points.
     *
     * @return hysteresis in [0, threshold)
     */
    public double hysteresisPct() {
        return hysteresisPct;
    }

    /**
     * Number of shadow paths (shadow MACs) computed per destination host.
     *
     * @return k, at least 1
     */
    public int shadowPathsPerDestination() {
        return shadowPathsPerDestination;
    }

    /**
     * Whether traffic engineering may move flows; off means static hash-based choice.
     *
     * @return true if TE is on
     */
    public boolean teEnabled() {
        return teEnabled;
    }

    /**
     * Minimum time between two reroutes of the same flow.
     *
     * @return damping interval in milliseconds
     */
    public long rerouteDampingMs() {
        return rerouteDampingMs;
    }

    /**
     * How often collectors may send flow-rate batches.
     *
     * @return interval in milliseconds, 1-1000
     */
    public int flowReportIntervalMs() {
        return flowReportIntervalMs;
    }

    /**
     * Percentage of its source host's link rate at which TE treats a flow as an elephant and
     * plans with its estimated demand rather than its measured rate (0: always the measured rate).
     *
     * @return percentage in [0, 100]
     */
    public double elephantThresholdPct() {
        return elephantThresholdPct;
    }

    /**
     * Which telemetry declares ports congested for traffic engineering.
     *
     * @return mirrors (default), INT or both
     */
    public CongestionSignal congestionSignal() {
        return congestionSignal;
    }

    /**
     * INT queue occupancy (the switch's unit) at or above which a port is congested, when the
     * congestion signal includes INT.
     *
     * @return 1 .. {@link #MAX_INT_QUEUE_OCCUPANCY}
     */
    public long intQueueThreshold() {
        return intQueueThreshold;
    }

    /**
     * An INT-congested port clears when every queue's occupancy is below threshold minus this.
     *
     * @return [0, intQueueThreshold)
     */
    public long intQueueHysteresis() {
        return intQueueHysteresis;
    }

    public List<CollectorConfig> collectors() {
        return collectors;
    }

    /**
     * A collector by id.
     *
     * @param id collector id
     * @return the collector if configured
     */
    public Optional<CollectorConfig> collector(String id) {
        return collectors.stream().filter(c -> c.id().equals(id)).findFirst();
    }

    /**
     * The served-switch entry of a device, whichever collector serves it.
     *
     * @param deviceId device
     * @return the entry if some collector serves the device
     */
    public Optional<ServedSwitch> servedSwitch(DeviceId deviceId) {
        checkNotNull(deviceId);
        return collectors.stream().map(c -> c.servedSwitch(deviceId)).filter(Optional::isPresent)
                .map(Optional::get).findFirst();
    }

    /**
     * Every served switch of every collector.
     *
     * @return served switches
     */
    public List<ServedSwitch> servedSwitches() {
        List<ServedSwitch> all = new ArrayList<>();
        collectors.forEach(c -> all.addAll(c.switches()));
        return all;
    }

    /**
     * The configuration as it was given (a copy; defaults are not filled in).
     *
     * @return JSON object
     */
    public ObjectNode json() {
        return json.deepCopy();
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PlanckSettings)) {
            return false;
        }
        PlanckSettings that = (PlanckSettings) o;
        return Double.compare(congestionThresholdPct, that.congestionThresholdPct) == 0
                && Double.compare(hysteresisPct, that.hysteresisPct) == 0
                && shadowPathsPerDestination == that.shadowPathsPerDestination
                && teEnabled == that.teEnabled && rerouteDampingMs == that.rerouteDampingMs
                && flowReportIntervalMs == that.flowReportIntervalMs
                && Double.compare(elephantThresholdPct, that.elephantThresholdPct) == 0
                && congestionSignal == that.congestionSignal && intQueueThreshold == that.intQueueThreshold
                && intQueueHysteresis == that.intQueueHysteresis
                && collectors.equals(that.collectors);
    }

    @Override
    public int hashCode() {
        return Objects.hash(congestionThresholdPct, hysteresisPct, shadowPathsPerDestination, teEnabled,
                rerouteDampingMs, flowReportIntervalMs, elephantThresholdPct, congestionSignal, intQueueThreshold,
                intQueueHysteresis, collectors);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add(CONGESTION_THRESHOLD_PCT, congestionThresholdPct).add(HYSTERESIS_PCT, hysteresisPct)
                .add(SHADOW_PATHS_PER_DESTINATION, shadowPathsPerDestination).add(TE_ENABLED, teEnabled)
                .add(REROUTE_DAMPING_MS, rerouteDampingMs).add(FLOW_REPORT_INTERVAL_MS, flowReportIntervalMs)
                .add(ELEPHANT_THRESHOLD_PCT, elephantThresholdPct)
                .add(CONGESTION_SIGNAL, congestionSignal.configName()).add(INT_QUEUE_THRESHOLD, intQueueThreshold)
                .add(INT_QUEUE_HYSTERESIS, intQueueHysteresis)
                .add(COLLECTORS, collectors).toString();
    }
}

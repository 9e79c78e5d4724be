package org.planck.api.telemetry;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.io.ByteStreams;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.FlowKey;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads and writes telemetry-events batches: v1 (docs/protocol/telemetry-events-v1.md), v2, which adds
 * INT_PORT events (docs/protocol/telemetry-events-v2.md), and v3, which adds PINT_PATH and
 * PINT_HOP_LATENCY (docs/protocol/telemetry-events-v3.md); INT_PORT events decode into
 * {@link TelemetryBatch#intSignals()}, PINT events into {@link TelemetryBatch#pintPaths()} and
 * {@link TelemetryBatch#pintLatencies()}.
 * <p>
 * Decoding validates the whole batch before returning anything, so a caller applies either
 * every event or none. Every failure is a {@link MalformedBatchException} whose message names
 * the offending field, e.g. {@code events[3].flow.sport: expected an integer in 0..65535}.
 * Unknown fields are ignored, so collectors may add fields without a version bump.
 * Instances are thread-safe.
 */
public final class TelemetryBatchCodec {
    /** Largest body accepted: 10,000 events of a verbose collector fit in well under this. */
    public static final int MAX_BODY_BYTES = 16 * 1024 * 1024;
    /** Largest rate accepted (8 Pb/s): beyond any port, and keeps per-port sums exact in a long. */
    public static final double MAX_BYTES_PER_SEC = 1e15;

    static final String FLOW_RATE = "FLOW_RATE";
    static final String PORT_CONGESTION = "PORT_CONGESTION";
    static final String INT_PORT = "INT_PORT";
    static final String PINT_PATH = "PINT_PATH";
    static final String PINT_HOP_LATENCY = "PINT_HOP_LATENCY";

    // Device ids, host addresses and MACs repeat across events; parsing each again would dominate
    // decoding. The caches stop growing when full, so hostile input cannot exhaust memory.
    private static final int CACHE_MAX = 65_536;

    private final ObjectMapper mapper;
    private final Map<String, DeviceId> devices = new ConcurrentHashMap<>();
    private final Map<String, IpAddress> ips = new ConcurrentHashMap<>();
    private final Map<String, MacAddress> macs = new ConcurrentHashMap<>();

    /**
     * Creates a codec.
     */
    public TelemetryBatchCodec() {
        JsonFactory factory = new JsonFactory();
        factory.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        mapper = new ObjectMapper(factory);
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    /**
     * Decodes and validates a batch from a JSON body.
     *
     * @param body request body, read at most {@link #MAX_BODY_BYTES} + 1 bytes
     * @return the batch
     * @throws MalformedBatchException if the body is not a valid v1 batch
     */
    public TelemetryBatch decode(InputStream body) throws MalformedBatchException {
        byte[] bytes;
        try {
            bytes = ByteStreams.toByteArray(ByteStreams.limit(body, MAX_BODY_BYTES + 1L));
        } catch (IOException e) {
            throw new MalformedBatchException("cannot read body: " + e.getMessage());
        }
        if (bytes.length > MAX_BODY_BYTES) {
            throw new MalformedBatchException("body larger than " + MAX_BODY_BYTES + " bytes");
        }
        return decode(bytes);
    }

    /**
     * Decodes and validates a batch from JSON bytes.
     *
     * @param json UTF-8 JSON
     * @return the batch
     * @throws MalformedBatchException if the bytes are not a valid v1 batch
     */
    public TelemetryBatch decode(byte[] json) throws MalformedBatchException {
        if (json.length == 0) {
            throw new MalformedBatchException("empty body");
        }
        try (JsonParser p = mapper.getFactory().createParser(json)) {
            return decode(p);
        } catch (IOException e) {
            throw new MalformedBatchException("malformed JSON: " + jsonProblem(e));
        }
    }

    /**
     * Validates and decodes a batch from a JSON tree.
     *
     * @param root the batch object
     * @return the batch
     * @throws MalformedBatchException if the tree is not a valid v1 batch
     */
    public TelemetryBatch decode(JsonNode root) throws MalformedBatchException {
        if (root == null) {
            throw new MalformedBatchException("batch must be a JSON object");
        }
        try (JsonParser p = mapper.treeAsTokens(root)) {
            return decode(p);
        } catch (IOException e) {
            throw new MalformedBatchException("malformed JSON: " + jsonProblem(e));
        }
    }

    private static String jsonProblem(IOException e) {
        return e instanceof JsonProcessingException ? ((JsonProcessingException) e).getOriginalMessage()
                : e.getMessage();
    }

    // Streaming keeps decoding cheap (no tree); fields may come in any order, so each object's
    // fields are collected first and validated once the object is complete.
    private TelemetryBatch decode(JsonParser p) throws IOException, MalformedBatchException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new MalformedBatchException("batch must be a JSON object");
        }
        Fields root = new Fields(ROOT_FIELDS.length);
        List<TelemetryEvent> events = null;
        List<IntPortSignal> intSignals = new ArrayList<>();
        List<PintPathEvent> pintPaths = new ArrayList<>();
        List<PintHopLatency> pintLatencies = new ArrayList<>();
        MalformedBatchException eventError = null;
        Fields ev = new Fields(EVENT_FIELDS.length);
        Fields fl = new Fields(FLOW_FIELDS.length);
        PathField path = new PathField();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.getCurrentName();
            JsonToken t = p.nextToken();
            if (EVENTS.equals(name)) {
                root.kind[R_EVENTS] = t == JsonToken.START_ARRAY ? K_ARRAY : kindOf(t);
                if (t != JsonToken.START_ARRAY) {
                    p.skipChildren();
                    continue;
                }
                events = new ArrayList<>();
                int count = 0;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    count++;
                    if (eventError != null || count > TelemetryBatch.MAX_EVENTS) {
                        p.skipChildren();
                        continue;
                    }
                    try {
                        Object e = event(p, count - 1, ev, fl, path);
                        if (e instanceof IntPortSignal) {
                            intSignals.add((IntPortSignal) e);
                        } else if (e instanceof PintPathEvent) {
                            pintPaths.add((PintPathEvent) e);
                        } else if (e instanceof PintHopLatency) {
                            pintLatencies.add((PintHopLatency) e);
                        } else {
                            events.add((TelemetryEvent) e);
                        }
                    } catch (MalformedBatchException e) {
                        // Reported only after the batch-level fields: a wrong version explains everything.
                        eventError = e;
                        p.skipChildren();
                    }
                }
                if (count > TelemetryBatch.MAX_EVENTS && eventError == null) {
                    eventError = new MalformedBatchException("events: " + count + " events, at most "
                            + TelemetryBatch.MAX_EVENTS + " per batch");
                }
            } else {
                root.read(ROOT_FIELDS, name, p, t);
            }
        }
        if (p.nextToken() != null) {
            throw new MalformedBatchException("malformed JSON: trailing content after the batch object");
        }
        if (root.kind[R_VERSION] == K_MISSING) {
            throw new MalformedBatchException("version: missing");
        }
        if (root.kind[R_VERSION] != K_INT || root.longs[R_VERSION] < TelemetryBatch.VERSION
                || root.longs[R_VERSION] > TelemetryBatch.VERSION_PINT) {
            throw new MalformedBatchException("version: unsupported " + root.texts[R_VERSION]
                    + " (this controller accepts " + TelemetryBatch.VERSION + ", " + TelemetryBatch.VERSION_INT
                    + " and " + TelemetryBatch.VERSION_PINT + ")");
        }
        String collector = root.string(R_COLLECTOR, ROOT_FIELDS, null, -1);
        if (collector.isEmpty()) {
            throw new MalformedBatchException("collector: must not be empty");
        }
        long seq = root.integer(R_SEQ, ROOT_FIELDS, null, -1, 0, Long.MAX_VALUE);
        long sentUs = root.integer(R_SENT_US, ROOT_FIELDS, null, -1, Long.MIN_VALUE, Long.MAX_VALUE);
        if (root.kind[R_EVENTS] == K_MISSING) {
            throw new MalformedBatchException("events: missing");
        }
        if (root.kind[R_EVENTS] != K_ARRAY) {
            throw new MalformedBatchException("events: expected an array");
        }
        if (eventError != null) {
            throw eventError;
        }
        if (!intSignals.isEmpty() && root.longs[R_VERSION] < TelemetryBatch.VERSION_INT) {
            throw new MalformedBatchException("events: INT_PORT events need version " + TelemetryBatch.VERSION_INT
                    + " or later");
        }
        if ((!pintPaths.isEmpty() || !pintLatencies.isEmpty()) && root.longs[R_VERSION] < TelemetryBatch.VERSION_PINT) {
            throw new MalformedBatchException("events: PINT_PATH and PINT_HOP_LATENCY events need version "
                    + TelemetryBatch.VERSION_PINT);
        }
        return new TelemetryBatch(collector, seq, sentUs, events, intSignals, pintPaths, pintLatencies);
    }

    private Object event(JsonParser p, int index, Fields ev, Fields fl, PathField path)
            throws IOException, MalformedBatchException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw new MalformedBatchException("events[" + index + "]: expected an object");
        }
        ev.clear();
        fl.clear();
        path.clear();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.getCurrentName();
            JsonToken t = p.nextToken();
            if (PATH.equals(name)) {
                path.read(p, t);
            } else if (FLOW.equals(name)) {
                ev.kind[E_FLOW] = t == JsonToken.START_OBJECT ? K_OBJECT : kindOf(t);
                if (t == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String fname = p.getCurrentName();
                        fl.read(FLOW_FIELDS, fname, p, p.nextToken());
                    }
                } else {
                    p.skipChildren();
                }
            } else {
                ev.read(EVENT_FIELDS, name, p, t);
            }
        }
        String type = ev.string(E_TYPE, EVENT_FIELDS, "", index);
        switch (type) {
            case FLOW_RATE:
                return flowRate(ev, fl, index);
            case PORT_CONGESTION:
                return congestion(ev, index);
            case INT_PORT:
                return intPort(ev, index);
            case PINT_PATH:
                return pintPath(ev, fl, path, index);
            case PINT_HOP_LATENCY:
                return pintHopLatency(ev, fl, index);
            default:
                throw new MalformedBatchException(at(index) + "type: unknown event type \"" + abbreviate(type)
                        + "\" (expected FLOW_RATE, PORT_CONGESTION, INT_PORT, PINT_PATH or PINT_HOP_LATENCY)");
        }
    }

    private PintPathEvent pintPath(Fields ev, Fields fl, PathField path, int i) throws MalformedBatchException {
        FlowKey flow = flowKey(ev, fl, i);
        if (path.kind == K_MISSING) {
            throw new MalformedBatchException(at(i) + "path: missing");
        }
        if (path.kind != K_ARRAY) {
            throw new MalformedBatchException(at(i) + "path: expected an array of device ids");
        }
        if (path.count < 1 || path.count > PintPathEvent.MAX_HOPS) {
            throw new MalformedBatchException(at(i) + "path: expected 1.." + PintPathEvent.MAX_HOPS
                    + " device ids, got " + path.count);
        }
        if (path.badItem >= 0) {
            throw new MalformedBatchException(at(i) + "path[" + path.badItem + "]: expected a string");
        }
        List<DeviceId> devices = new ArrayList<>(path.items.size());
        for (int h = 0; h < path.items.size(); h++) {
            devices.add(device(path.items.get(h), "path[" + h + "]", i));
        }
        long packets = ev.integer(E_PACKETS, EVENT_FIELDS, "", i, 1, Long.MAX_VALUE);
        String c = ev.string(E_CAUSE, EVENT_FIELDS, "", i);
        PintPathEvent.Cause cause;
        try {
            cause = PintPathEvent.Cause.valueOf(c);
        } catch (IllegalArgumentException ex) {
            throw new MalformedBatchException(at(i) + "cause: unknown cause \"" + abbreviate(c)
                    + "\" (expected NEW_KEY or PATH_CHANGE)");
        }
        long timeUs = ev.integer(E_TIME_US, EVENT_FIELDS, "", i, Long.MIN_VALUE, Long.MAX_VALUE);
        return new PintPathEvent(flow, devices, packets, cause, timeUs);
    }

    private PintHopLatency pintHopLatency(Fields ev, Fields fl, int i) throws MalformedBatchException {
        FlowKey flow = flowKey(ev, fl, i);
        int hop = (int) ev.integer(E_HOP, EVENT_FIELDS, "", i, 1, PintPathEvent.MAX_HOPS);
        DeviceId device = null;
        if (ev.kind[E_SWITCH] != K_MISSING) {
            device = device(ev.string(E_SWITCH, EVENT_FIELDS, "", i), "switch", i);
        }
        long samples = ev.integer(E_SAMPLES, EVENT_FIELDS, "", i, 1, Long.MAX_VALUE);
        long p50 = ev.integer(E_P50_NS, EVENT_FIELDS, "", i, 0, Long.MAX_VALUE);
        long p99 = ev.integer(E_P99_NS, EVENT_FIELDS, "", i, 0, Long.MAX_VALUE);
        long timeUs = ev.integer(E_TIME_US, EVENT_FIELDS, "", i, Long.MIN_VALUE, Long.MAX_VALUE);
        return new PintHopLatency(flow, hop, device, samples, p50, p99, timeUs);
    }

    private FlowKey flowKey(Fields ev, Fields fl, int i) throws MalformedBatchException {
        if (ev.kind[E_FLOW] == K_MISSING) {
            throw new MalformedBatchException(at(i) + "flow: missing");
        }
        if (ev.kind[E_FLOW] != K_OBJECT) {
            throw new MalformedBatchException(at(i) + "flow: expected an object");
        }
        IpAddress src = ip(fl, F_SRC, i);
        IpAddress dst = ip(fl, F_DST, i);
        if (src.version() != dst.version()) {
            throw new MalformedBatchException(at(i) + "flow.dst: IP version differs from src");
        }
        int proto = (int) fl.integer(F_PROTO, FLOW_FIELDS, "flow.", i, 0, 255);
        int sport = (int) fl.integer(F_SPORT, FLOW_FIELDS, "flow.", i, 0, 65535);
        int dport = (int) fl.integer(F_DPORT, FLOW_FIELDS, "flow.", i, 0, 65535);
        return FlowKey.of(src, dst, proto, sport, dport);
    }

    private FlowRateEvent flowRate(Fields ev, Fields fl, int i) throws MalformedBatchException {
        FlowKey flow = flowKey(ev, fl, i);
        ConnectPoint port = connectPoint(ev, i);
        String macText = ev.string(E_DST_MAC, EVENT_FIELDS, "", i);
        MacAddress dstMac = macs.get(macText);
        if (dstMac == null) {
            try {
                dstMac = MacAddress.valueOf(macText);
            } catch (IllegalArgumentException ex) {
                throw new MalformedBatchException(at(i) + "dstMac: not a MAC address: \"" + abbreviate(macText) + "\"");
            }
            remember(macs, macText, dstMac);
        }
        double rate = ev.number(E_BYTES, EVENT_FIELDS, i, 0, MAX_BYTES_PER_SEC, false);
        long samples = ev.integer(E_SAMPLES, EVENT_FIELDS, "", i, 1, Long.MAX_VALUE);
        long first = ev.integer(E_FIRST, EVENT_FIELDS, "", i, Long.MIN_VALUE, Long.MAX_VALUE);
        long last = ev.integer(E_LAST, EVENT_FIELDS, "", i, Long.MIN_VALUE, Long.MAX_VALUE);
        if (last < first) {
            throw new MalformedBatchException(at(i) + "lastSampleUs: earlier than firstSampleUs");
        }
        String est = ev.string(E_ESTIMATOR, EVENT_FIELDS, "", i);
        RateEstimator estimator;
        try {
            estimator = RateEstimator.valueOf(est);
        } catch (IllegalArgumentException ex) {
            throw new MalformedBatchException(at(i) + "estimator: unknown estimator \"" + abbreviate(est)
                    + "\" (expected TCP_SEQ, TCP_ACK or SAMPLED_BYTES)");
        }
        // Optional (absent: false); readers of earlier v1 batches ignore it as an unknown field.
        boolean lowConfidence = false;
        if (ev.kind[E_LOW_CONFIDENCE] != K_MISSING) {
            String v = ev.texts[E_LOW_CONFIDENCE];
            if (ev.kind[E_LOW_CONFIDENCE] != K_OTHER || !("true".equals(v) || "false".equals(v))) {
                throw new MalformedBatchException(at(i) + "lowConfidence: must be true or false");
            }
            lowConfidence = "true".equals(v);
        }
        return new FlowRateEvent(flow, port, dstMac, rate, samples,
                first, last, estimator, lowConfidence);
    }

    private PortCongestionNotice congestion(Fields ev, int i) throws MalformedBatchException {
        ConnectPoint port = connectPoint(ev, i);
        String st = ev.string(E_STATE, EVENT_FIELDS, "", i);
        CongestionState state;
        try {
            state = CongestionState.valueOf(st);
        } catch (IllegalArgumentException ex) {
            throw new MalformedBatchException(at(i) + "state: unknown state \"" + abbreviate(st)
                    + "\" (expected CONGESTED or CLEARED)");
        }
        double utilization = ev.number(E_UTIL, EVENT_FIELDS, i, 0, Double.MAX_VALUE, false);
        double load = ev.number(E_LOAD, EVENT_FIELDS, i, 0, Double.MAX_VALUE, false);
        double capacity = ev.number(E_CAPACITY, EVENT_FIELDS, i, 0, Double.MAX_VALUE, true);
        long sampleUs = ev.integer(E_SAMPLE_US, EVENT_FIELDS, "", i, Long.MIN_VALUE, Long.MAX_VALUE);
        long timeUs = ev.integer(E_TIME_US, EVENT_FIELDS, "", i, Long.MIN_VALUE, Long.MAX_VALUE);
        return new PortCongestionNotice(port, state, utilization, load, capacity, sampleUs, timeUs);
    }

    private IntPortSignal intPort(Fields ev, int i) throws MalformedBatchException {
        ConnectPoint port = connectPoint(ev, i);
        String sig = ev.string(E_SIGNAL, EVENT_FIELDS, "", i);
        IntPortSignal.Signal signal;
        try {
            signal = IntPortSignal.Signal.valueOf(sig);
        } catch (IllegalArgumentException ex) {
            throw new MalformedBatchException(at(i) + "signal: unknown signal \"" + abbreviate(sig)
                    + "\" (expected QUEUE_OCCUPANCY, HOP_LATENCY or LINK_UTILIZATION)");
        }
        long value = ev.integer(E_VALUE, EVENT_FIELDS, "", i, 0, IntPortSignal.MAX_VALUE);
        int queue = -1;
        if (signal == IntPortSignal.Signal.QUEUE_OCCUPANCY) {
            queue = (int) ev.integer(E_QUEUE, EVENT_FIELDS, "", i, 0, 255);
        } else if (ev.kind[E_QUEUE] != K_MISSING) {
            throw new MalformedBatchException(at(i) + "queue: only QUEUE_OCCUPANCY signals name a queue");
        }
        String c = ev.string(E_CAUSE, EVENT_FIELDS, "", i);
        IntPortSignal.Cause cause;
        try {
            cause = IntPortSignal.Cause.valueOf(c);
        } catch (IllegalArgumentException ex) {
            throw new MalformedBatchException(at(i) + "cause: unknown cause \"" + abbreviate(c)
                    + "\" (expected NEW_KEY, PATH_CHANGE, INTERVAL or PERIODIC)");
        }
        long reportUs = ev.integer(E_REPORT_US, EVENT_FIELDS, "", i, Long.MIN_VALUE, Long.MAX_VALUE);
        return new IntPortSignal(port, signal, value, queue, cause, reportUs);
    }

    private ConnectPoint connectPoint(Fields ev, int i) throws MalformedBatchException {
        DeviceId device = device(ev.string(E_SWITCH, EVENT_FIELDS, "", i), "switch", i);
        long port = ev.integer(E_PORT, EVENT_FIELDS, "", i, 0, 0xffffffffL);
        return new ConnectPoint(device, PortNumber.portNumber(port));
    }

    private DeviceId device(String sw, String field, int i) throws MalformedBatchException {
        DeviceId device = devices.get(sw);
        if (device == null) {
            if (sw.isEmpty()) {
                throw new MalformedBatchException(at(i) + field + ": must not be empty");
            }
            try {
                device = DeviceId.deviceId(sw);
            } catch (IllegalArgumentException ex) {
                throw new MalformedBatchException(at(i) + field + ": not a device id: \"" + abbreviate(sw) + "\"");
            }
            remember(devices, sw, device);
        }
        return device;
    }

    private IpAddress ip(Fields fl, int field, int i) throws MalformedBatchException {
        String text = fl.string(field, FLOW_FIELDS, "flow.", i);
        IpAddress ip = ips.get(text);
        if (ip == null) {
            try {
                ip = IpAddress.valueOf(text);
            } catch (IllegalArgumentException ex) {
                throw new MalformedBatchException(at(i) + "flow." + FLOW_FIELDS[field] + ": not an IP address: \""
                        + abbreviate(text) + "\"");
            }
            remember(ips, text, ip);
        }
        return ip;
    }

    private static <V> void remember(Map<String, V> cache, String key, V value) {
        if (cache.size() < CACHE_MAX) {
            cache.put(key, value);
        }
    }

    private static String at(int index) {
        return "events[" + index + "].";
    }

    // ---- field tables ----

    private static final String EVENTS = "events";
    private static final String FLOW = "flow";
    private static final String PATH = "path";

    private static final String[] ROOT_FIELDS = {"version", "collector", "seq", "sentUs", EVENTS};
    private static final int R_VERSION = 0;
    private static final int R_COLLECTOR = 1;
    private static final int R_SEQ = 2;
    private static final int R_SENT_US = 3;
    private static final int R_EVENTS = 4;

    private static final String[] EVENT_FIELDS = {
        "type", FLOW, "switch", "port", "dstMac", "bytesPerSec", "samples", "firstSampleUs", "lastSampleUs",
        "estimator", "state", "utilization", "loadBps", "capacityBps", "sampleUs", "timeUs", "lowConfidence",
        "signal", "value", "queue", "cause", "reportUs", "packets", "hop", "p50Ns", "p99Ns",
    };
    private static final int E_TYPE = 0;
    private static final int E_FLOW = 1;
    private static final int E_SWITCH = 2;
    private static final int E_PORT = 3;
    private static final int E_DST_MAC = 4;
    private static final int E_BYTES = 5;
    private static final int E_SAMPLES = 6;
    private static final int E_FIRST = 7;
    private static final int E_LAST = 8;
    private static final int E_ESTIMATOR = 9;
    private static final int E_STATE = 10;
    private static final int E_UTIL = 11;
    private static final int E_LOAD = 12;
    private static final int E_CAPACITY = 13;
    private static final int E_SAMPLE_US = 14;
    private static final int E_TIME_US = 15;
    private static final int E_LOW_CONFIDENCE = 16;
    private static final int E_SIGNAL = 17;
    private static final int E_VALUE = 18;
    private static final int E_QUEUE = 19;
    private static final int E_CAUSE = 20;
    private static final int E_REPORT_US = 21;
    private static final int E_PACKETS = 22;
    private static final int E_HOP = 23;
    private static final int E_P50_NS = 24;
    private static final int E_P99_NS = 25;

    private static final String[] FLOW_FIELDS = {"src", "dst", "proto", "sport", "dport"};
    private static final int F_SRC = 0;
    private static final int F_DST = 1;
    private static final int F_PROTO = 2;
    private static final int F_SPORT = 3;
    private static final int F_DPORT = 4;

    private static final byte K_MISSING = 0;
    private static final byte K_INT = 1;
    private static final byte K_FLOAT = 2;
    private static final byte K_STRING = 3;
    private static final byte K_OTHER = 4;
    private static final byte K_BIG_INT = 5;
    private static final byte K_OBJECT = 6;
    private static final byte K_ARRAY = 7;

    private static byte kindOf(JsonToken t) {
        switch (t) {
            case VALUE_NUMBER_INT:
                return K_INT;
            case VALUE_NUMBER_FLOAT:
                return K_FLOAT;
            case VALUE_STRING:
                return K_STRING;
            case START_OBJECT:
                return K_OBJECT;
            case START_ARRAY:
                return K_ARRAY;
            default:
                return K_OTHER;
        }
    }

    private static int indexOf(String[] names, String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** A PINT_PATH event's {@code path}: the strings of an array, at most one past the bound kept. */
    private static final class PathField {
        byte kind;
        int count;
        int badItem;
        final List<String> items = new ArrayList<>();

        void clear() {
            kind = K_MISSING;
            count = 0;
            badItem = -1;
            items.clear();
        }

        void read(JsonParser p, JsonToken t) throws IOException {
            kind = kindOf(t);
            if (t != JsonToken.START_ARRAY) {
                p.skipChildren();
                return;
            }
            JsonToken item;
            while ((item = p.nextToken()) != JsonToken.END_ARRAY) {
                if (item == JsonToken.VALUE_STRING) {
                    if (count < PintPathEvent.MAX_HOPS) {
                        items.add(p.getText());
                    }
                } else {
                    if (badItem < 0) {
                        badItem = count;
                    }
                    p.skipChildren();
                }
                count++;
            }
        }
    }

    /** The scalar fields of one JSON object as read, validated once the object is complete. */
    private static final class Fields {
        final byte[] kind;
        final long[] longs;
        final double[] doubles;
        final String[] texts;

        Fields(int n) {
            kind = new byte[n];
            longs = new long[n];
            doubles = new double[n];
            texts = new String[n];
        }

        void clear() {
            java.util.Arrays.fill(kind, K_MISSING);
        }

        void read(String[] names, String name, JsonParser p, JsonToken t) throws IOException {
            int f = indexOf(names, name);
            if (f < 0) {
                p.skipChildren();
                return;
            }
            byte k = kindOf(t);
            switch (k) {
                case K_INT:
                    if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                        k = K_BIG_INT;
                        texts[f] = p.getText();
                    } else {
                        longs[f] = p.getLongValue();
                        texts[f] = null;
                    }
                    doubles[f] = p.getDoubleValue();
                    break;
                case K_FLOAT:
                    doubles[f] = p.getDoubleValue();
                    texts[f] = p.getText();
                    break;
                case K_STRING:
                    texts[f] = p.getText();
                    break;
                default:
                    texts[f] = t == JsonToken.START_OBJECT ? "{...}" : t == JsonToken.START_ARRAY ? "[...]"
                            : p.getText();
                    p.skipChildren();
                    break;
            }
            kind[f] = k;
            if (k == K_STRING && f == R_VERSION && names == ROOT_FIELDS) {
                texts[f] = "\"" + abbreviate(texts[f]) + "\"";
            } else if (k == K_INT && f == R_VERSION && names == ROOT_FIELDS) {
                texts[f] = Long.toString(longs[f]);
            }
        }

        private static String where(String[] names, String prefix, int index, int f) {
            return (index < 0 ? "" : at(index)) + (prefix == null ? "" : prefix) + names[f];
        }

        String string(int f, String[] names, String prefix, int index) throws MalformedBatchException {
            if (kind[f] == K_MISSING) {
                throw new MalformedBatchException(where(names, prefix, index, f) + ": missing");
            }
            if (kind[f] != K_STRING) {
                throw new MalformedBatchException(where(names, prefix, index, f) + ": expected a string");
            }
            return texts[f];
        }

        long integer(int f, String[] names, String prefix, int index, long min, long max)
                throws MalformedBatchException {
            if (kind[f] == K_MISSING) {
                throw new MalformedBatchException(where(names, prefix, index, f) + ": missing");
            }
            if (kind[f] != K_INT || longs[f] < min || longs[f] > max) {
                throw new MalformedBatchException(where(names, prefix, index, f) + ": expected an integer"
                        + range(min, max));
            }
            return longs[f];
        }

        double number(int f, String[] names, int index, double min, double max, boolean exclusiveMin)
                throws MalformedBatchException {
            if (kind[f] == K_MISSING) {
                throw new MalformedBatchException(where(names, "", index, f) + ": missing");
            }
            if (kind[f] != K_INT && kind[f] != K_FLOAT && kind[f] != K_BIG_INT) {
                throw new MalformedBatchException(where(names, "", index, f) + ": expected a number");
            }
            double d = doubles[f];
            boolean aboveMin = exclusiveMin ? d > min : d >= min;
            if (!Double.isFinite(d) || !aboveMin || d > max) {
                throw new MalformedBatchException(where(names, "", index, f) + ": expected a finite number "
                        + (exclusiveMin ? "> " : ">= ") + fmt(min)
                        + (max < Double.MAX_VALUE ? " and <= " + fmt(max) : "") + ", got "
                        + (kind[f] == K_INT ? Long.toString(longs[f]) : texts[f]));
            }
            return d;
        }
    }

    private static String range(long min, long max) {
        if (min == Long.MIN_VALUE && max == Long.MAX_VALUE) {
            return "";
        }
        if (max == Long.MAX_VALUE) {
            return " >= " + min;
        }
        return " in " + min + ".." + max;
    }

    private static String fmt(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e18 ? Long.toString((long) d) : Double.toString(d);
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }

    /**
     * Encodes a batch as a JSON tree (what a collector sends), with the lowest version that
     * carries its events ({@link TelemetryBatch#version()}).
     *
     * @param batch the batch
     * @return JSON object
     */
    public ObjectNode encode(TelemetryBatch batch) {
        return TelemetryBatchWriter.encode(mapper, batch);
    }

    /**
     * Encodes a batch as UTF-8 JSON bytes.
     *
     * @param batch the batch
     * @return JSON bytes
     */
    public byte[] encodeBytes(TelemetryBatch batch) {
        try {
            return mapper.writeValueAsBytes(encode(batch));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode batch", e);
        }
    }
}

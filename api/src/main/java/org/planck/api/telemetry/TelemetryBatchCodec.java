package org.planck.api.telemetry;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
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
 * Reads and writes telemetry-events batches: v1 (docs/protocol/telemetry-events-v1.md) and v2, which adds
 * INT_PORT events (docs/protocol/telemetry-events-v2.md); v2 batches decode their INT_PORT events into
 * {@link TelemetryBatch#intSignals()}.
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
        MalformedBatchException eventError = null;
        Fields ev = new Fields(EVENT_FIELDS.length);
        Fields fl = new Fields(FLOW_FIELDS.length);
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
                        TelemetryEvent e = event(p, count - 1, ev, fl);
                        if (e instanceof IntPortSignal) {
                            intSignals.add((IntPortSignal) e);
                        } else {
                            events.add(e);
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
        if (root.kind[R_VERSION] != K_INT || (root.longs[R_VERSION] != TelemetryBatch.VERSION
                && root.longs[R_VERSION] != TelemetryBatch.VERSION_INT)) {
            throw new MalformedBatchException("version: unsupported " + root.texts[R_VERSION]
                    + " (this controller accepts " + TelemetryBatch.VERSION + " and " + TelemetryBatch.VERSION_INT
                    + ")");
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
        if (!intSignals.isEmpty() && root.longs[R_VERSION] != TelemetryBatch.VERSION_INT) {
            throw new MalformedBatchException("events: INT_PORT events need version " + TelemetryBatch.VERSION_INT);
        }
        return new TelemetryBatch(collector, seq, sentUs, events, intSignals);
    }

    private TelemetryEvent event(JsonParser p, int index, Fields ev, Fields fl)
            throws IOException, MalformedBatchException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw new MalformedBatchException("events[" + index + "]: expected an object");
        }
        ev.clear();
        fl.clear();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.getCurrentName();
            JsonToken t = p.nextToken();
            if (FLOW.equals(name)) {
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
            default:
                throw new MalformedBatchException(at(index) + "type: unknown event type \"" + abbreviate(type)
                        + "\" (expected FLOW_RATE, PORT_CONGESTION or INT_PORT)");
        }
    }

    private FlowRateEvent flowRate(Fields ev, Fields fl, int i) throws MalformedBatchException {
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
        return new FlowRateEvent(FlowKey.of(src, dst, proto, sport, dport), port, dstMac, rate, samples,
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
        String sw = ev.string(E_SWITCH, EVENT_FIELDS, "", i);
        DeviceId device = devices.get(sw);
        if (device == null) {
            if (sw.isEmpty()) {
                throw new MalformedBatchException(at(i) + "switch: must not be empty");
            }
            try {
                device = DeviceId.deviceId(sw);
            } catch (IllegalArgumentException ex) {
                throw new MalformedBatchException(at(i) + "switch: not a device id: \"" + abbreviate(sw) + "\"");
            }
            remember(devices, sw, device);
        }
        long port = ev.integer(E_PORT, EVENT_FIELDS, "", i, 0, 0xffffffffL);
        return new ConnectPoint(device, PortNumber.portNumber(port));
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

    private static final String[] ROOT_FIELDS = {"version", "collector", "seq", "sentUs", EVENTS};
    private static final int R_VERSION = 0;
    private static final int R_COLLECTOR = 1;
    private static final int R_SEQ = 2;
    private static final int R_SENT_US = 3;
    private static final int R_EVENTS = 4;

    private static final String[] EVENT_FIELDS = {
        "type", FLOW, "switch", "port", "dstMac", "bytesPerSec", "samples", "firstSampleUs", "lastSampleUs",
        "estimator", "state", "utilization", "loadBps", "capacityBps", "sampleUs", "timeUs", "lowConfidence",
        "signal", "value", "queue", "cause", "reportUs",
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
     * Encodes a batch as a JSON tree (what a collector sends).
     *
     * @param batch the batch
     * @return JSON object
     */
    public ObjectNode encode(TelemetryBatch batch) {
        ObjectNode root = mapper.createObjectNode();
        root.put("version", batch.intSignals().isEmpty() ? TelemetryBatch.VERSION : TelemetryBatch.VERSION_INT);
        root.put("collector", batch.collector());
        root.put("seq", batch.seq());
        root.put("sentUs", batch.sentUs());
        ArrayNode events = root.putArray("events");
        for (TelemetryEvent e : batch.events()) {
            ObjectNode n = events.addObject();
            if (e instanceof FlowRateEvent) {
                FlowRateEvent f = (FlowRateEvent) e;
                n.put("type", FLOW_RATE);
                ObjectNode flow = n.putObject("flow");
                flow.put("src", f.flow().src().toString());
                flow.put("dst", f.flow().dst().toString());
                flow.put("proto", f.flow().proto());
                flow.put("sport", f.flow().srcPort());
                flow.put("dport", f.flow().dstPort());
                n.put("switch", f.port().deviceId().toString());
                n.put("port", f.port().port().toLong());
                n.put("dstMac", f.dstMac().toString());
                n.put("bytesPerSec", f.bytesPerSec());
                n.put("samples", f.samples());
                n.put("firstSampleUs", f.firstSampleUs());
                n.put("lastSampleUs", f.lastSampleUs());
                n.put("estimator", f.estimator().name());
                if (f.lowConfidence()) {
                    n.put("lowConfidence", true);
                }
            } else {
                PortCongestionNotice c = (PortCongestionNotice) e;
                n.put("type", PORT_CONGESTION);
                n.put("switch", c.port().deviceId().toString());
                n.put("port", c.port().port().toLong());
                n.put("state", c.state().name());
                n.put("utilization", c.utilization());
                n.put("loadBps", c.loadBps());
                n.put("capacityBps", c.capacityBps());
                n.put("sampleUs", c.sampleUs());
                n.put("timeUs", c.timeUs());
            }
        }
        for (IntPortSignal s : batch.intSignals()) {
            ObjectNode n = events.addObject();
            n.put("type", INT_PORT);
            n.put("switch", s.port().deviceId().toString());
            n.put("port", s.port().port().toLong());
            n.put("signal", s.signal().name());
            n.put("value", s.value());
            if (s.queue() >= 0) {
                n.put("queue", s.queue());
            }
            n.put("cause", s.cause().name());
            n.put("reportUs", s.reportUs());
        }
        return root;
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

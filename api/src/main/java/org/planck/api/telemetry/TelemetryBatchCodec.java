package org.planck.api.telemetry;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
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
 * Reads and writes telemetry-events-v1 batches (docs/protocol/telemetry-events-v1.md).
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

    // Device ids repeat in every event; URI parsing each time would dominate decoding.
    private static final int DEVICE_CACHE_MAX = 65_536;

    private final ObjectMapper mapper;
    private final Map<String, DeviceId> devices = new ConcurrentHashMap<>();

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
        JsonNode root;
        try {
            root = mapper.readTree(json);
        } catch (JsonProcessingException e) {
            throw new MalformedBatchException("malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new MalformedBatchException("malformed JSON: " + e.getMessage());
        }
        return decode(root);
    }

    /**
     * Validates and decodes a batch from a JSON tree.
     *
     * @param root the batch object
     * @return the batch
     * @throws MalformedBatchException if the tree is not a valid v1 batch
     */
    public TelemetryBatch decode(JsonNode root) throws MalformedBatchException {
        if (root == null || !root.isObject()) {
            throw new MalformedBatchException("batch must be a JSON object");
        }
        JsonNode version = root.get("version");
        if (version == null) {
            throw new MalformedBatchException("version: missing");
        }
        if (!version.isIntegralNumber() || !version.canConvertToLong() || version.longValue() != TelemetryBatch.VERSION) {
            throw new MalformedBatchException("version: unsupported " + version + " (this controller accepts "
                    + TelemetryBatch.VERSION + ")");
        }
        String collector = string(root, "collector", "");
        if (collector.isEmpty()) {
            throw new MalformedBatchException("collector: must not be empty");
        }
        long seq = integer(root, "seq", "", 0, Long.MAX_VALUE);
        long sentUs = integer(root, "sentUs", "", Long.MIN_VALUE, Long.MAX_VALUE);
        JsonNode events = root.get("events");
        if (events == null) {
            throw new MalformedBatchException("events: missing");
        }
        if (!events.isArray()) {
            throw new MalformedBatchException("events: expected an array");
        }
        if (events.size() > TelemetryBatch.MAX_EVENTS) {
            throw new MalformedBatchException("events: " + events.size() + " events, at most "
                    + TelemetryBatch.MAX_EVENTS + " per batch");
        }
        List<TelemetryEvent> decoded = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            decoded.add(event(events.get(i), "events[" + i + "]."));
        }
        return new TelemetryBatch(collector, seq, sentUs, decoded);
    }

    private TelemetryEvent event(JsonNode e, String at) throws MalformedBatchException {
        if (!e.isObject()) {
            throw new MalformedBatchException(at.substring(0, at.length() - 1) + ": expected an object");
        }
        String type = string(e, "type", at);
        switch (type) {
            case FLOW_RATE:
                return flowRate(e, at);
            case PORT_CONGESTION:
                return congestion(e, at);
            default:
                throw new MalformedBatchException(at + "type: unknown event type \"" + type
                        + "\" (expected FLOW_RATE or PORT_CONGESTION)");
        }
    }

    private FlowRateEvent flowRate(JsonNode e, String at) throws MalformedBatchException {
        JsonNode f = e.get("flow");
        if (f == null) {
            throw new MalformedBatchException(at + "flow: missing");
        }
        if (!f.isObject()) {
            throw new MalformedBatchException(at + "flow: expected an object");
        }
        String fat = at + "flow.";
        IpAddress src = ip(f, "src", fat);
        IpAddress dst = ip(f, "dst", fat);
        if (src.version() != dst.version()) {
            throw new MalformedBatchException(fat + "dst: IP version differs from src");
        }
        int proto = (int) integer(f, "proto", fat, 0, 255);
        int sport = (int) integer(f, "sport", fat, 0, 65535);
        int dport = (int) integer(f, "dport", fat, 0, 65535);
        ConnectPoint port = connectPoint(e, at);
        MacAddress dstMac;
        String mac = string(e, "dstMac", at);
        try {
            dstMac = MacAddress.valueOf(mac);
        } catch (IllegalArgumentException ex) {
            throw new MalformedBatchException(at + "dstMac: not a MAC address: \"" + mac + "\"");
        }
        double rate = number(e, "bytesPerSec", at, 0, MAX_BYTES_PER_SEC, false);
        long samples = integer(e, "samples", at, 1, Long.MAX_VALUE);
        long first = integer(e, "firstSampleUs", at, Long.MIN_VALUE, Long.MAX_VALUE);
        long last = integer(e, "lastSampleUs", at, Long.MIN_VALUE, Long.MAX_VALUE);
        if (last < first) {
            throw new MalformedBatchException(at + "lastSampleUs: earlier than firstSampleUs");
        }
        String est = string(e, "estimator", at);
        RateEstimator estimator;
        try {
            estimator = RateEstimator.valueOf(est);
        } catch (IllegalArgumentException ex) {
            throw new MalformedBatchException(at + "estimator: unknown estimator \"" + est
                    + "\" (expected TCP_SEQ, TCP_ACK or SAMPLED_BYTES)");
        }
        return new FlowRateEvent(FlowKey.of(src, dst, proto, sport, dport), port, dstMac, rate, samples,
                first, last, estimator);
    }

    private PortCongestionNotice congestion(JsonNode e, String at) throws MalformedBatchException {
        ConnectPoint port = connectPoint(e, at);
        String st = string(e, "state", at);
        CongestionState state;
        try {
            state = CongestionState.valueOf(st);
        } catch (IllegalArgumentException ex) {
            throw new MalformedBatchException(at + "state: unknown state \"" + st
                    + "\" (expected CONGESTED or CLEARED)");
        }
        double utilization = number(e, "utilization", at, 0, Double.MAX_VALUE, false);
        double load = number(e, "loadBps", at, 0, Double.MAX_VALUE, false);
        double capacity = number(e, "capacityBps", at, 0, Double.MAX_VALUE, true);
        long sampleUs = integer(e, "sampleUs", at, Long.MIN_VALUE, Long.MAX_VALUE);
        long timeUs = integer(e, "timeUs", at, Long.MIN_VALUE, Long.MAX_VALUE);
        return new PortCongestionNotice(port, state, utilization, load, capacity, sampleUs, timeUs);
    }

    private ConnectPoint connectPoint(JsonNode e, String at) throws MalformedBatchException {
        String sw = string(e, "switch", at);
        DeviceId device = devices.get(sw);
        if (device == null) {
            if (sw.isEmpty()) {
                throw new MalformedBatchException(at + "switch: must not be empty");
            }
            try {
                device = DeviceId.deviceId(sw);
            } catch (IllegalArgumentException ex) {
                throw new MalformedBatchException(at + "switch: not a device id: \"" + abbreviate(sw) + "\"");
            }
            if (devices.size() < DEVICE_CACHE_MAX) {
                devices.put(sw, device);
            }
        }
        long port = integer(e, "port", at, 0, 0xffffffffL);
        return new ConnectPoint(device, PortNumber.portNumber(port));
    }

    private static IpAddress ip(JsonNode o, String field, String at) throws MalformedBatchException {
        String text = string(o, field, at);
        try {
            return IpAddress.valueOf(text);
        } catch (IllegalArgumentException ex) {
            throw new MalformedBatchException(at + field + ": not an IP address: \"" + abbreviate(text) + "\"");
        }
    }

    private static String string(JsonNode o, String field, String at) throws MalformedBatchException {
        JsonNode v = o.get(field);
        if (v == null) {
            throw new MalformedBatchException(at + field + ": missing");
        }
        if (!v.isTextual()) {
            throw new MalformedBatchException(at + field + ": expected a string");
        }
        return v.textValue();
    }

    private static long integer(JsonNode o, String field, String at, long min, long max)
            throws MalformedBatchException {
        JsonNode v = o.get(field);
        if (v == null) {
            throw new MalformedBatchException(at + field + ": missing");
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < min || v.longValue() > max) {
            throw new MalformedBatchException(at + field + ": expected an integer" + range(min, max));
        }
        return v.longValue();
    }

    private static double number(JsonNode o, String field, String at, double min, double max, boolean exclusiveMin)
            throws MalformedBatchException {
        JsonNode v = o.get(field);
        if (v == null) {
            throw new MalformedBatchException(at + field + ": missing");
        }
        if (!v.isNumber()) {
            throw new MalformedBatchException(at + field + ": expected a number");
        }
        double d = v.doubleValue();
        boolean aboveMin = exclusiveMin ? d > min : d >= min;
        if (!Double.isFinite(d) || !aboveMin || d > max) {
            throw new MalformedBatchException(at + field + ": expected a finite number "
                    + (exclusiveMin ? "> " : ">= ") + fmt(min)
                    + (max < Double.MAX_VALUE ? " and <= " + fmt(max) : "") + ", got " + v);
        }
        return d;
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
        root.put("version", TelemetryBatch.VERSION);
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

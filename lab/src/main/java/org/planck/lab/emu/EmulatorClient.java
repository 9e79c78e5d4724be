package org.planck.lab.emu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Client of the emulator control API, version 1 (docs/protocol/emulator-control-v1.md).
 * Thread-safe.
 */
public final class EmulatorClient {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final URI base;
    private final HttpClient http;
    private final ObjectMapper mapper = new ObjectMapper();

    /**
     * A client.
     *
     * @param base control API address, e.g. {@code http://127.0.0.1:9870}
     */
    public EmulatorClient(URI base) {
        this.base = checkNotNull(base, "base");
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
                .version(HttpClient.Version.HTTP_1_1).build();
    }

    public URI base() {
        return base;
    }

    /**
     * Reads the topology.
     *
     * @return topology
     */
    public EmulatorTopology topology() {
        return EmulatorTopology.parse(send("GET", "/v1/topology", null));
    }

    /**
     * Reads port and rule counters.
     *
     * @return snapshot
     */
    public CounterSnapshot counters() {
        return CounterSnapshot.parse(send("GET", "/v1/counters", null));
    }

    /**
     * Applies a batch of rule operations atomically.
     *
     * @param ops operations
     * @return emulator time from which the rules are in force ({@code appliedUs})
     */
    public long applyRules(Collection<RuleOp> ops) {
        ObjectNode body = mapper.createObjectNode();
        body.put("version", 1);
        ArrayNode a = body.putArray("ops");
        ops.forEach(op -> a.add(op.toJson(mapper)));
        JsonNode answer = send("POST", "/v1/rules", body);
        if (!answer.path("appliedUs").isIntegralNumber()) {
            throw new EmulatorException(200, "rules answer without appliedUs");
        }
        return answer.get("appliedUs").asLong();
    }

    /**
     * Replaces the mirror configuration.
     *
     * @param sink    sink object ({@code {"type":"interface","name":...}} or pcap)
     * @param mirrors mirrors, empty to remove all
     */
    public void putMirrors(ObjectNode sink, Collection<MirrorSpec> mirrors) {
        ObjectNode body = mapper.createObjectNode();
        body.put("version", 1);
        body.set("sink", sink);
        ArrayNode a = body.putArray("mirrors");
        mirrors.forEach(m -> a.add(m.toJson(mapper)));
        send("PUT", "/v1/mirrors", body);
    }

    /**
     * A sink writing mirror frames to a local interface.
     *
     * @param name interface name
     * @return sink object
     */
    public ObjectNode interfaceSink(String name) {
        return mapper.createObjectNode().put("type", "interface").put("name", name);
    }

    /**
     * Starts flows.
     *
     * @param flows flows
     */
    public void startFlows(Collection<FlowSpec> flows) {
        ObjectNode body = mapper.createObjectNode();
        body.put("version", 1);
        ArrayNode a = body.putArray("flows");
        flows.forEach(f -> a.add(f.toJson(mapper)));
        send("POST", "/v1/flows", body);
    }

    /**
     * Reads every flow's state.
     *
     * @return flows
     */
    public List<EmulatedFlow> flows() {
        JsonNode json = send("GET", "/v1/flows", null);
        if (!json.path("flows").isArray()) {
            throw new EmulatorException(200, "flows answer without a flows array");
        }
        List<EmulatedFlow> out = new ArrayList<>();
        for (JsonNode f : json.get("flows")) {
            out.add(new EmulatedFlow(f.path("id").asLong(), f.path("src").asText(), f.path("dst").asText(),
                                     f.path("bytes").asLong(), f.path("startUs").asLong(),
                                     f.path("finishUs").asLong(), f.path("sentBytes").asLong(),
                                     f.path("done").asBoolean(false), f.path("retransmits").asLong(0),
                                     f.path("timeouts").asLong(0)));
        }
        return out;
    }

    /**
     * Reads the status.
     *
     * @return status
     */
    public FabricStatus status() {
        return FabricStatus.parse(send("GET", "/v1/status", null));
    }

    /**
     * Asks the fabric to stop.
     */
    public void shutdown() {
        send("POST", "/v1/shutdown", null);
    }

    private JsonNode send(String method, String path, JsonNode body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT);
        try {
            if (body != null) {
                b.header("Content-Type", "application/json")
                        .method(method, HttpRequest.BodyPublishers.ofByteArray(mapper.writeValueAsBytes(body)));
            } else {
                b.method(method, HttpRequest.BodyPublishers.noBody());
            }
            HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            byte[] bytes = r.body();
            JsonNode json = bytes.length == 0 ? mapper.createObjectNode() : mapper.readTree(bytes);
            if (r.statusCode() / 100 != 2) {
                throw new EmulatorException(r.statusCode(), method + " " + path + ": "
                        + json.path("message").asText("HTTP " + r.statusCode()));
            }
            return json;
        } catch (IOException e) {
            throw new EmulatorException(method + " " + path + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmulatorException(method + " " + path + ": interrupted", e);
        }
    }
}

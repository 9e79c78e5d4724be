package org.planck.lab.emu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.Timeout;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Client of the emulator control API, version 1 (docs/protocol/emulator-control-v1.md).
 * Thread-safe. Each exchange is done by the calling thread on a kept-alive connection with
 * TCP_NODELAY (Apache HttpClient 5, classic): the rule batches of the control loop go out
 * from the deciding real-time thread without a hand-over to other threads, which with
 * java.net.http cost about 0.9 ms per exchange at the median here (docs/lab.md).
 */
public final class EmulatorClient {
    private static final Timeout CONNECT_TIMEOUT = Timeout.ofSeconds(2);
    private static final Timeout TIMEOUT = Timeout.ofSeconds(10);
    /** Concurrent exchanges: the deciding threads, the poller, the runner's status reads. */
    private static final int CONNECTIONS = 8;

    private final URI base;
    private final CloseableHttpClient http;
    private final ObjectMapper mapper = new ObjectMapper();

    /**
     * A client.
     *
     * @param base control API address, e.g. {@code http://127.0.0.1:9870}
     */
    public EmulatorClient(URI base) {
        this.base = checkNotNull(base, "base");
        PoolingHttpClientConnectionManager connections = PoolingHttpClientConnectionManagerBuilder.create()
                .setDefaultSocketConfig(SocketConfig.custom().setTcpNoDelay(true)
                        .setSoTimeout(TIMEOUT).build())
                .setDefaultConnectionConfig(ConnectionConfig.custom().setConnectTimeout(CONNECT_TIMEOUT)
                        .setSocketTimeout(TIMEOUT).build())
                .setMaxConnPerRoute(CONNECTIONS).setMaxConnTotal(CONNECTIONS).build();
        this.http = HttpClients.custom().setConnectionManager(connections)
                .setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(TIMEOUT)
                        .setConnectionRequestTimeout(TIMEOUT).build())
                .disableAutomaticRetries().disableRedirectHandling().disableCookieManagement()
                .disableAuthCaching().disableContentCompression().build();
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
        HttpUriRequestBase request = new HttpUriRequestBase(method, base.resolve(path));
        try {
            if (body != null) {
                request.setEntity(new ByteArrayEntity(mapper.writeValueAsBytes(body), ContentType.APPLICATION_JSON));
            }
            return http.execute(request, r -> {
                byte[] bytes = r.getEntity() == null ? new byte[0] : EntityUtils.toByteArray(r.getEntity());
                JsonNode json = bytes.length == 0 ? mapper.createObjectNode() : mapper.readTree(bytes);
                if (r.getCode() / 100 != 2) {
                    throw new EmulatorException(r.getCode(), method + " " + path + ": "
                            + json.path("message").asText("HTTP " + r.getCode()));
                }
                return json;
            });
        } catch (IOException e) {
            throw new EmulatorException(method + " " + path + ": " + e.getMessage(), e);
        }
    }
}

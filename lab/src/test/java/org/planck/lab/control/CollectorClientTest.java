package org.planck.lab.control;

import com.sun.net.httpserver.HttpServer;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * The lab's pushes to a collector control endpoint that requires credentials, against a
 * stand-in that answers as the collector does (401 without the right basic auth).
 */
public class CollectorClientTest {
    private static final String GOOD = "Basic dGU6czNjcmV0"; // te:s3cret
    private HttpServer server;
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private URI base;

    @Before
    public void setUp() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        server.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                in.readAllBytes();
            }
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            seen.add(auth);
            int code = GOOD.equals(auth) ? 204 : 401;
            exchange.sendResponseHeaders(code, -1);
            exchange.close();
        });
        server.start();
        base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @After
    public void tearDown() {
        server.stop(0);
    }

    private static TeSettings settings() {
        return new TeSettings(80, 5, 100, 100, 5, 10);
    }

    @Test
    public void sendsTheConfiguredCredentials() {
        new CollectorClient(base, "te", "s3cret").pushConfig(settings());
        assertEquals(List.of(GOOD), seen);
    }

    @Test
    public void withoutCredentialsARefusalIsAnError() {
        try {
            new CollectorClient(base).pushConfig(settings());
            fail("a 401 was taken as success");
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("401"));
        }
        assertNull(seen.get(0));
        try {
            new CollectorClient(base, "te", "wrong").pushConfig(settings());
            fail("a 401 was taken as success");
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("401"));
        }
    }
}

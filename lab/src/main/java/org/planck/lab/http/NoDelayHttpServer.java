package org.planck.lab.http;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The JDK's built-in HTTP server with TCP_NODELAY on every accepted connection.
 *
 * <p>The server writes a response's headers and its body in separate writes. Without
 * TCP_NODELAY the body waits, by Nagle's algorithm, for the ACK of the headers, and the
 * client, which has nothing to send until the body arrives, delays that ACK by up to 40 ms:
 * every request/answer pair of the control loop would cost a delayed-ACK timeout. The server
 * reads its choice from the system property {@code sun.net.httpserver.nodelay} once, when the
 * first server of the JVM is created: one server created elsewhere first (the live view once
 * was) silently turns it off for every server of the process. So the lab's entry point calls
 * {@link #init()} before anything else, every lab server is created here
 * ({@code HttpServerCreationTest} fails the build otherwise), and
 * {@code TelemetryEndpointTest} checks that it takes effect (a keep-alive request/answer pair
 * far below the 40 ms floor).</p>
 */
public final class NoDelayHttpServer {
    /** The JDK server's switch for TCP_NODELAY on accepted sockets. */
    public static final String NODELAY_PROPERTY = "sun.net.httpserver.nodelay";

    static {
        System.setProperty(NODELAY_PROPERTY, "true");
    }

    private NoDelayHttpServer() {
    }

    /** Sets the property (by loading this class); call first thing in a process's entry point. */
    public static void init() {
        System.setProperty(NODELAY_PROPERTY, "true");
    }

    /**
     * Creates (does not start) a server bound to an address.
     *
     * @param address listen address (port 0 picks a free port)
     * @param backlog listen backlog
     * @return the server
     * @throws IOException if the address cannot be bound
     */
    public static HttpServer create(InetSocketAddress address, int backlog) throws IOException {
        return HttpServer.create(address, backlog);
    }
}

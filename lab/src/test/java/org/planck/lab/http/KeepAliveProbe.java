package org.planck.lab.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * A client that cannot stall anyone: TCP_NODELAY, each request in one write, sequential
 * request/answer pairs on one kept-alive connection. What it measures is the server's part.
 */
public final class KeepAliveProbe {
    private KeepAliveProbe() {
    }

    /**
     * Median time of {@code n} request/answer pairs after a first one that opens the connection.
     *
     * @param port    server port on 127.0.0.1
     * @param request a complete HTTP/1.1 request (keep-alive)
     * @param n       pairs measured
     * @return median, ms
     * @throws IOException if the server closes the connection or answers without a length
     */
    public static double medianMs(int port, byte[] request, int n) throws IOException {
        double[] ms = new double[n];
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setTcpNoDelay(true);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            for (int i = -1; i < n; i++) {
                long t = System.nanoTime();
                out.write(request);
                out.flush();
                readAnswer(in);
                if (i >= 0) {
                    ms[i] = (System.nanoTime() - t) / 1e6;
                }
            }
        }
        Arrays.sort(ms);
        return ms[n / 2];
    }

    /** Reads one answer: headers, then Content-Length bytes of body. */
    private static void readAnswer(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed mid-answer");
            }
            head.write(b);
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        long length = -1;
        for (String line : head.toString(StandardCharsets.ISO_8859_1).split("\r\n")) {
            String l = line.toLowerCase(Locale.ROOT);
            if (l.startsWith("content-length:")) {
                length = Long.parseLong(l.substring("content-length:".length()).trim());
            }
        }
        if (length < 0) {
            throw new IOException("answer without Content-Length: " + head);
        }
        if (in.readNBytes((int) length).length != length) {
            throw new IOException("connection closed mid-body");
        }
    }
}

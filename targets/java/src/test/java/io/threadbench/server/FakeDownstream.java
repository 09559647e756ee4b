package io.threadbench.server;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * FakeDownstream is a downstream service for tests: {@code /api/heavy?duration=MS}
 * sleeps and answers 200, counting the calls it has in flight; under
 * {@code /fail} every path answers 500. One virtual thread per exchange, so it
 * never limits a fan-out.
 */
final class FakeDownstream implements AutoCloseable {

    private final HttpServer server;
    private final AtomicInteger inflight = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private final Set<InetSocketAddress> clients = ConcurrentHashMap.newKeySet();

    FakeDownstream() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1000);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/api/heavy", this::heavy);
        server.createContext("/fail", exchange -> answer(exchange, 500, "{\"status\":500,\"error\":\"failing on purpose\"}"));
        server.start();
    }

    /** baseUrl is where heavy answers. */
    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** failingUrl is a base URL under which every call gets a 500. */
    String failingUrl() {
        return baseUrl() + "/fail";
    }

    /** peak is the most heavy calls that were in flight at once since the last reset. */
    int peak() {
        return peak.get();
    }

    /**
     * resetPeak starts counting anew once no call is in flight: a call an
     * earlier test gave up on (a client timeout) still sleeps here, and would
     * count towards the next test's peak. It waits up to 10 s for them.
     */
    void resetPeak() throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (inflight.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        peak.set(0);
    }

    /** connections is how many client connections heavy has been called on. */
    int connections() {
        return clients.size();
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void heavy(HttpExchange exchange) throws IOException {
        clients.add(exchange.getRemoteAddress());
        int ms = IntParam.DURATION.parse(exchange.getRequestURI().getRawQuery());
        peak.accumulateAndGet(inflight.incrementAndGet(), Math::max);
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } finally {
            // Before the answer goes out: once it has, the caller may hand its
            // bulkhead permit to a call that arrives before this line would run.
            inflight.decrementAndGet();
        }
        answer(exchange, 200, "{\"endpoint\":\"heavy\",\"durationMs\":" + ms + "}");
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** closedPortUrl is the URL of a port nothing listens on: connects are refused. */
    static String closedPortUrl() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }
    }

    /**
     * Unanswered is a listener whose accept queue is full, so a connect to it
     * gets no answer and times out: the kernel drops SYNs to a full queue.
     */
    static final class Unanswered implements AutoCloseable {

        private final ServerSocket socket;
        private final List<Socket> queued = new ArrayList<>();

        Unanswered() throws IOException {
            socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()); // never accepts
            for (int i = 0; i < 8; i++) { // connects succeed until the queue is full
                Socket s = new Socket();
                try {
                    s.connect(socket.getLocalSocketAddress(), 200);
                    queued.add(s);
                } catch (SocketTimeoutException e) {
                    s.close();
                    return;
                }
            }
            close();
            throw new IllegalStateException("still accepting connections after 8: cannot make a connect time out");
        }

        String url() {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            for (Socket s : queued) {
                s.close();
            }
            socket.close();
        }
    }

    /** HangUp accepts every connection and closes it without an answer. */
    static final class HangUp implements AutoCloseable {

        private final ServerSocket socket;

        HangUp() throws IOException {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread.ofVirtual().start(() -> {
                while (!socket.isClosed()) {
                    try (Socket accepted = socket.accept()) {
                        // closed at once
                    } catch (IOException e) {
                        return; // the socket was closed
                    }
                }
            });
        }

        String url() {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}

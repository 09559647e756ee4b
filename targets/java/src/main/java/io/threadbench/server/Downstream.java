package io.threadbench.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;

/**
 * Downstream calls the downstream service's {@code /api/heavy} for
 * {@code /api/fanout} and {@code /api/downstream}, with the JDK's
 * HttpURLConnection and its one keep-alive cache per process, configured as
 * the seed's caller: connect timeout 500 ms, the call's timeout as the read
 * timeout of each socket read, and room to keep every connection idle.
 *
 * <p>Why this client: like the seed's Apache HttpClient (classic), it blocks
 * the calling thread in the socket's connect and reads, so the threads that
 * wait are exactly the fan-out's: a pool's platform threads stay held, virtual
 * threads unmount. Apache HttpClient 5.6 needs the jdk.net module, which the
 * JRE images the orchestrator assembles lack. java.net.http runs every exchange
 * on one selector thread and times connects out with its own timers: on a cold
 * JVM with one CPU, a burst of 1000 calls lost about 40 % of them to connect
 * timeouts that were not (some reported as "request timed out"), where this
 * client and Apache's lost none.
 */
public final class Downstream {

    /** CONNECT_TIMEOUT_MS is how long a call may take to connect, as in the seed. */
    public static final int CONNECT_TIMEOUT_MS = 500;

    /** MAX_IDLE_PER_HOST is how many idle connections the JDK keeps per host: every call of the largest fan-out. */
    public static final int MAX_IDLE_PER_HOST = IntParam.MAX_CALLS;

    /** IDLE_SECONDS is how long an idle connection is kept, as the seed's eviction and the Go target. */
    public static final int IDLE_SECONDS = 60;

    static {
        // Read once, when the JDK's keep-alive cache is first used; a -D given at start wins.
        setIfUnset("http.maxConnections", String.valueOf(MAX_IDLE_PER_HOST)); // the JDK's default is 5
        setIfUnset("http.keepAlive.time.server", String.valueOf(IDLE_SECONDS)); // default 5 s without a Keep-Alive header
    }

    private final String baseUrl;

    /** Downstream calls {@code baseUrl} (DOWNSTREAM_URL); blank means there is none. */
    public Downstream(String baseUrl) {
        String url = baseUrl == null ? "" : baseUrl.strip();
        if (!url.isEmpty()) {
            check(url);
        }
        this.baseUrl = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** isConfigured says whether there is a downstream to call. */
    public boolean isConfigured() {
        return !baseUrl.isEmpty();
    }

    /** requireConfigured throws the contract's 503 when there is no downstream to call. */
    public void requireConfigured() {
        if (!isConfigured()) {
            throw DownstreamException.notConfigured();
        }
    }

    /** baseUrl is the downstream's base URL without a trailing slash, "" when there is none. */
    public String baseUrl() {
        return baseUrl;
    }

    /**
     * heavy calls the downstream's {@code /api/heavy?duration=durationMs} on the
     * calling thread. The call has CONNECT_TIMEOUT_MS to connect, then
     * {@code timeoutMs} for each read of the answer.
     */
    public Call heavy(int durationMs, int timeoutMs) {
        HttpURLConnection connection;
        try {
            URL url = URI.create(baseUrl + "/api/heavy?duration=" + durationMs).toURL();
            connection = (HttpURLConnection) url.openConnection(Proxy.NO_PROXY); // as the Go target's transport
        } catch (IOException | IllegalArgumentException e) {
            return new Call(CallOutcome.OTHER, String.valueOf(e.getMessage()));
        }
        connection.setConnectTimeout(CONNECT_TIMEOUT_MS);
        connection.setReadTimeout(timeoutMs);
        boolean connected = false;
        try {
            connection.connect(); // a cached idle connection, or a new one
            connected = true;
            int status = connection.getResponseCode();
            drain(connection, status);
            return Call.answered(status);
        } catch (IOException e) {
            connection.disconnect(); // the connection is not fit to reuse
            return Call.failed(e, connected);
        }
    }

    /** Call is one call's outcome and, when it failed, what went wrong. */
    public record Call(CallOutcome outcome, String detail) {
        static final Call SUCCEEDED = new Call(CallOutcome.OK, "");

        /** answered is a call the downstream answered with {@code status}: any but a 2xx is a failure. */
        public static Call answered(int status) {
            return status >= 200 && status <= 299 ? SUCCEEDED : new Call(CallOutcome.OTHER, "status " + status);
        }

        /** failed is a call that got no answer because of {@code failure}, {@code connected} or not. */
        public static Call failed(Throwable failure, boolean connected) {
            return new Call(CallOutcome.classify(failure, connected), String.valueOf(failure.getMessage()));
        }
    }

    /** drain reads the answer through and closes it, which gives the connection back to the keep-alive cache. */
    private static void drain(HttpURLConnection connection, int status) throws IOException {
        try (InputStream body = status >= 400 ? connection.getErrorStream() : connection.getInputStream()) {
            if (body != null) {
                body.transferTo(OutputStream.nullOutputStream());
            }
        }
    }

    /** check refuses a URL that could not be called, so a typo stops the target at start. */
    private static void check(String url) {
        try {
            URI uri = new URI(url);
            if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
                return;
            }
        } catch (URISyntaxException e) {
            // falls through to the message
        }
        throw new IllegalArgumentException("DOWNSTREAM_URL must be an http:// or https:// base URL, got \"" + url + "\"");
    }

    private static void setIfUnset(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }
}

package io.threadbench.server;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;

import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * Downstream is the one HTTP client of this process, calling the downstream
 * service's {@code /api/heavy} for {@code /api/fanout} and {@code /api/downstream}.
 *
 * <p>It is Apache HttpClient 5 classic, configured as the seed's caller is,
 * rather than java.net.http.HttpClient: classic I/O blocks the calling thread
 * in a socket read, so the threads that wait are exactly the fan-out's (a pool's
 * platform threads, or virtual threads that unmount), which is what the
 * benchmark compares. java.net.http runs every exchange on its own selector
 * thread and completes it on an executor (a cached pool of platform threads
 * by default) in both thread models, which would blur that comparison. Its
 * response timeout is also a socket read timeout, as the seed's readTimeout.
 */
public final class Downstream implements AutoCloseable {

    /** CONNECT_TIMEOUT_MS is how long a call may take to connect, as in the seed. */
    public static final int CONNECT_TIMEOUT_MS = 500;

    private final String baseUrl;
    private final CloseableHttpClient client; // null when no downstream is configured

    /** Downstream calls {@code baseUrl} (DOWNSTREAM_URL); blank means there is none. */
    public Downstream(String baseUrl) {
        String url = baseUrl == null ? "" : baseUrl.strip();
        if (!url.isEmpty()) {
            check(url);
        }
        this.baseUrl = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.client = url.isEmpty() ? null : newClient();
    }

    /** isConfigured says whether there is a downstream to call. */
    public boolean isConfigured() {
        return client != null;
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
        HttpGet get = new HttpGet(baseUrl + "/api/heavy?duration=" + durationMs);
        get.setConfig(RequestConfig.custom().setResponseTimeout(Timeout.ofMilliseconds(timeoutMs)).build());
        try {
            int status = client.execute(get, response -> {
                EntityUtils.consume(response.getEntity()); // read through, so the connection is reused
                return response.getCode();
            });
            return status >= 200 && status <= 299 ? Call.SUCCEEDED : new Call(CallOutcome.OTHER, "status " + status);
        } catch (IOException e) {
            return new Call(CallOutcome.classify(e), String.valueOf(e.getMessage()));
        }
    }

    @Override
    public void close() {
        if (client != null) {
            client.close(CloseMode.GRACEFUL);
        }
    }

    /** Call is one call's outcome and, when it failed, what went wrong. */
    public record Call(CallOutcome outcome, String detail) {
        static final Call SUCCEEDED = new Call(CallOutcome.OK, "");
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

    /**
     * newClient builds the seed's client: connect timeout 500 ms, stale
     * connections checked after 5 s idle, idle ones evicted after 60 s, and a
     * pool so large it never makes a call wait (the seed's 1000 per route,
     * unbounded here as in the Go target). A call that finds its pooled
     * connection closed by the server is retried once at once, as Go's
     * transport does; answers are never retried (Apache's default retries a
     * 503 or 429, after a second).
     */
    private static CloseableHttpClient newClient() {
        ConnectionConfig connections = ConnectionConfig.custom()
                .setConnectTimeout(Timeout.ofMilliseconds(CONNECT_TIMEOUT_MS))
                .setValidateAfterInactivity(TimeValue.ofSeconds(5))
                .build();
        return HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setDefaultConnectionConfig(connections)
                        .setMaxConnTotal(Integer.MAX_VALUE)
                        .setMaxConnPerRoute(Integer.MAX_VALUE)
                        .build())
                .evictIdleConnections(TimeValue.ofSeconds(60))
                .setRetryStrategy(new DefaultHttpRequestRetryStrategy(1, TimeValue.ZERO_MILLISECONDS) {
                    @Override
                    public boolean retryRequest(HttpResponse response, int execCount, HttpContext context) {
                        return false;
                    }
                })
                .build();
    }
}

package io.threadbench.server;

import org.springframework.http.HttpStatus;

/**
 * DownstreamException is a request the downstream could not serve: 503 when
 * none is configured, 504 when the call timed out, 502 when it failed
 * otherwise. Its message is the error body's, word for word the Go target's.
 */
public class DownstreamException extends RuntimeException {

    private final HttpStatus status;

    /** DownstreamException answers {@code status} with {@code message}. */
    public DownstreamException(HttpStatus status, String message) {
        super(message);
        this.status = status;
    }

    /** status is the HTTP status the request gets. */
    public HttpStatus status() {
        return status;
    }

    /** notConfigured is the 503 of a target started without DOWNSTREAM_URL. */
    public static DownstreamException notConfigured() {
        return new DownstreamException(HttpStatus.SERVICE_UNAVAILABLE, "no downstream is configured: set DOWNSTREAM_URL");
    }

    /** failed describes a call that did not succeed, which had {@code timeoutMs} to read its answer. */
    public static DownstreamException failed(Downstream.Call call, int timeoutMs) {
        return switch (call.outcome()) {
            case READ_TIMEOUT -> new DownstreamException(HttpStatus.GATEWAY_TIMEOUT,
                    "downstream read timed out after " + timeoutMs + " ms");
            case CONNECT_TIMEOUT -> new DownstreamException(HttpStatus.GATEWAY_TIMEOUT,
                    "downstream connect timed out after " + Downstream.CONNECT_TIMEOUT_MS + " ms");
            case REFUSED -> new DownstreamException(HttpStatus.BAD_GATEWAY, "downstream refused the connection");
            case OK, OTHER -> new DownstreamException(HttpStatus.BAD_GATEWAY, "downstream call failed: " + call.detail());
        };
    }
}

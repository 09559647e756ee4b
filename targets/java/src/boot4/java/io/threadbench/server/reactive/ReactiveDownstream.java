package io.threadbench.server.reactive;

import java.net.URI;
import java.time.Duration;

import io.netty.channel.ChannelOption;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientRequest;
import reactor.netty.resources.ConnectionProvider;

import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;

import io.threadbench.server.Downstream;

/**
 * ReactiveDownstream makes the reactive model's non-blocking downstream
 * calls: Spring's WebClient on Reactor Netty's client, which runs on the
 * same event loops as the server, as a WebFlux user's does. It is configured
 * as Downstream is, for the contract's caller: HTTP/1.1, no proxy, a connect
 * timeout of 500 ms, the call's timeout as the longest wait between two
 * reads of the answer (counted once the request is sent), and every
 * connection kept idle for 60 s. Its pool allows as many connections as the
 * largest fan-out makes, so that no call waits for one. A failed call is
 * classified by CallOutcome and worded by DownstreamException, as a blocking
 * one is.
 *
 * <p>WebClient rather than java.net.http's sendAsync: Netty's timeouts have
 * types that say which they are (ConnectTimeoutException,
 * ReadTimeoutException), where java.net.http reports a read timeout as
 * "request timed out" counted from before the connect; and it needs no
 * selector thread of its own (the README says what that cost the fan-out).
 */
public final class ReactiveDownstream implements AutoCloseable {

    private final Downstream downstream;
    private final ConnectionProvider connections;
    private final WebClient client;

    /** ReactiveDownstream calls where {@code downstream} does. */
    public ReactiveDownstream(Downstream downstream) {
        this.downstream = downstream;
        this.connections = ConnectionProvider.builder("threadbench-downstream")
                .maxConnections(Downstream.MAX_IDLE_PER_HOST) // Reactor Netty's default is 2 per processor, at least 16
                .pendingAcquireMaxCount(-1) // beyond that, calls wait rather than fail
                .maxIdleTime(Duration.ofSeconds(Downstream.IDLE_SECONDS))
                .build();
        HttpClient http = HttpClient.create(connections)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, Downstream.CONNECT_TIMEOUT_MS);
        this.client = WebClient.builder().clientConnector(new ReactorClientHttpConnector(http)).build();
    }

    /**
     * heavy calls the downstream's {@code /api/heavy?duration=durationMs},
     * giving it {@code timeoutMs} between reads of the answer. The Mono never
     * fails: it holds the call's outcome, delivered on an event loop.
     */
    public Mono<Downstream.Call> heavy(int durationMs, int timeoutMs) {
        return client.get()
                .uri(URI.create(downstream.baseUrl() + "/api/heavy?duration=" + durationMs))
                .httpRequest(request -> request.<HttpClientRequest>getNativeRequest()
                        .responseTimeout(Duration.ofMillis(timeoutMs)))
                .exchangeToMono(response -> response.releaseBody()
                        .thenReturn(Downstream.Call.answered(response.statusCode().value())))
                // "connected" only sorts a SocketTimeoutException, which Netty never raises:
                // its connect and read timeouts have types of their own.
                .onErrorResume(failure -> Mono.just(Downstream.Call.failed(failure, true)));
    }

    /** close drops the pooled connections. */
    @Override
    public void close() {
        connections.dispose();
    }
}

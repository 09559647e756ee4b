package io.threadbench.server.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.WebFilterChain;

import io.threadbench.server.InflightRequests;

class ReactiveInflightRequestsTest {

    private final InflightRequests inflight = new InflightRequests();
    private final ReactiveInflightRequests filter = new ReactiveInflightRequests(inflight);

    /** counts reads the gauges as "platform virtual". */
    private String counts() {
        return inflight.platform() + " " + inflight.virtual();
    }

    private static MockServerWebExchange exchange(String path) {
        return MockServerWebExchange.from(MockServerHttpRequest.get(path));
    }

    @Test
    void countsFromArrivalUntilTheResponseCompletes() {
        Sinks.Empty<Void> response = Sinks.empty();
        AtomicReference<String> seen = new AtomicReference<>();
        WebFilterChain chain = exchange -> {
            seen.set(counts());
            return response.asMono();
        };
        filter.filter(exchange("/api/heavy"), chain).subscribe();
        assertEquals("1 0", seen.get(), "as the handler starts: an event loop is a platform thread");
        assertEquals("1 0", counts(), "while the response is pending, with no thread held");
        response.tryEmitEmpty();
        assertEquals("0 0", counts(), "once it completed");
    }

    @Test
    void aFailedOrCancelledRequestLeaves() {
        filter.filter(exchange("/api/light"), exchange -> Mono.error(new IllegalStateException("boom")))
                .onErrorComplete().block(Duration.ofSeconds(1));
        assertEquals("0 0", counts(), "after an error");
        filter.filter(exchange("/api/light"), exchange -> Mono.never()).subscribe().dispose();
        assertEquals("0 0", counts(), "after the client went away");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/health", "/actuator/prometheus", "/actuator/health"})
    void leavesOutHealthChecksAndScrapes(String path) {
        AtomicReference<String> seen = new AtomicReference<>();
        filter.filter(exchange(path), exchange -> {
            seen.set(counts());
            return Mono.empty();
        }).block(Duration.ofSeconds(1));
        assertEquals("0 0", seen.get());
    }
}

package io.threadbench.server.reactive;

import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import io.threadbench.server.InflightRequests;

/**
 * ReactiveInflightRequests is the reactive model's in-flight request counter:
 * a WebFilter, first of all, that counts each request from its arrival until
 * its response is written, in the gauges of {@link InflightRequests}. The
 * thread that takes a request is an event loop, a platform thread, so every
 * request counts as {@code thread="platform"}, by the servlet filter's own
 * rule; unlike the servlet models', a request in flight holds no thread of
 * its own while it waits. Health checks and scrapes are left out, as there.
 */
public final class ReactiveInflightRequests implements WebFilter, Ordered {

    private final InflightRequests inflight;

    /** ReactiveInflightRequests counts in {@code inflight}'s gauges. */
    public ReactiveInflightRequests(InflightRequests inflight) {
        this.inflight = inflight;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        if (InflightRequests.excluded(exchange.getRequest().getPath().pathWithinApplication().value())) {
            return chain.filter(exchange);
        }
        AtomicInteger count = inflight.countOf(Thread.currentThread());
        count.incrementAndGet();
        // doFinally: on completion, on an error and when the client goes away (cancel).
        return chain.filter(exchange).doFinally(signal -> count.decrementAndGet());
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}

package io.threadbench.server;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * InflightRequests counts the requests being handled right now, by what runs
 * their handler, and exposes the counts as {@code threadbench.inflight.requests}
 * with {@code thread="platform"} and {@code thread="virtual"}, both always
 * present. Micrometer's {@code jvm.threads.virtual.live} counts only virtual
 * threads mounted on or queued for a carrier, not parked ones, so with
 * hundreds of requests asleep on virtual threads it reads about 1; each
 * request in flight holds its own thread, so this count is the number of
 * request threads in use. The metrics endpoint and the health checks are
 * left out, so a scrape does not count itself. It is the servlet models'
 * filter; the reactive model counts through {@code reactive.ReactiveInflightRequests}.
 */
public final class InflightRequests implements Filter, MeterBinder {

    /** NAME is the gauge's Micrometer name, threadbench_inflight_requests in Prometheus. */
    public static final String NAME = "threadbench.inflight.requests";

    private final AtomicInteger platform = new AtomicInteger();
    private final AtomicInteger virtual = new AtomicInteger();

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (excluded(request)) {
            chain.doFilter(request, response);
            return;
        }
        // The thread that starts the request is the one its handler runs on:
        // the controllers are synchronous.
        AtomicInteger count = countOf(Thread.currentThread());
        count.incrementAndGet();
        try {
            chain.doFilter(request, response);
        } finally {
            count.decrementAndGet();
        }
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        gauge(registry, "platform", platform);
        gauge(registry, "virtual", virtual);
    }

    /** platform is the number of requests in flight on platform threads. */
    public int platform() {
        return platform.get();
    }

    /** virtual is the number of requests in flight on virtual threads. */
    public int virtual() {
        return virtual.get();
    }

    /**
     * countOf is the count a request started on {@code thread} belongs to:
     * virtual for a virtual thread, else platform (Reactor Netty's event
     * loops are platform threads).
     */
    public AtomicInteger countOf(Thread thread) {
        return thread.isVirtual() ? virtual : platform;
    }

    /** excluded says whether a request is the orchestrator's own: health checks and scrapes. */
    static boolean excluded(ServletRequest request) {
        if (!(request instanceof HttpServletRequest http)) {
            return false;
        }
        return excluded(http.getRequestURI().substring(http.getContextPath().length()));
    }

    /** excluded says whether a request for {@code path}, within the application, is a health check or a scrape. */
    public static boolean excluded(String path) {
        return path.equals("/health") || path.startsWith("/actuator/");
    }

    private static void gauge(MeterRegistry registry, String thread, AtomicInteger count) {
        Gauge.builder(NAME, count, AtomicInteger::get)
                .tag("thread", thread)
                .description("Requests being handled, by the kind of thread running their handler")
                .register(registry);
    }
}

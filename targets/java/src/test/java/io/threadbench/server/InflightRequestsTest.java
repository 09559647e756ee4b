package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicReference;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class InflightRequestsTest {

    private final InflightRequests inflight = new InflightRequests();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    InflightRequestsTest() {
        inflight.bindTo(registry);
    }

    /** gauges reads both labelled gauges as "platform virtual". */
    private String gauges() {
        return (int) gauge("platform") + " " + (int) gauge("virtual");
    }

    private double gauge(String thread) {
        return registry.get(InflightRequests.NAME).tag("thread", thread).gauge().value();
    }

    /** seenInChain runs one request through the filter on thread and returns the gauges as the handler saw them. */
    private String seenInChain(Thread.Builder thread, String path) throws InterruptedException {
        AtomicReference<String> seen = new AtomicReference<>();
        AtomicReference<Exception> failed = new AtomicReference<>();
        FilterChain chain = (req, resp) -> seen.set(gauges());
        thread.start(() -> {
            try {
                inflight.doFilter(new MockHttpServletRequest("GET", path), new MockHttpServletResponse(), chain);
            } catch (Exception e) {
                failed.set(e);
            }
        }).join();
        assertEquals(null, failed.get());
        return seen.get();
    }

    @Test
    void bothLabelsAtZeroWhenIdle() {
        assertEquals("0 0", gauges());
    }

    @Test
    void countsByTheKindOfThreadRunningTheHandler() throws InterruptedException {
        assertEquals("0 1", seenInChain(Thread.ofVirtual(), "/api/heavy"));
        assertEquals("1 0", seenInChain(Thread.ofPlatform(), "/api/heavy"));
        assertEquals("0 0", gauges(), "after the requests");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/health", "/actuator/prometheus", "/actuator/health"})
    void leavesOutHealthChecksAndScrapes(String path) throws InterruptedException {
        assertEquals("0 0", seenInChain(Thread.ofVirtual(), path));
        assertEquals("0 0", seenInChain(Thread.ofPlatform(), path));
    }

    @Test
    void aFailingHandlerStillLeaves() {
        FilterChain chain = (req, resp) -> {
            throw new ServletException("boom");
        };
        assertThrows(ServletException.class, () -> inflight.doFilter(
                new MockHttpServletRequest("GET", "/api/light"), new MockHttpServletResponse(), chain));
        assertEquals("0 0", gauges());
    }
}

package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class NmtMetricsTest {

    @Test
    void gaugesReadOneCachedSummary() throws IOException {
        String text = NmtSummaryTest.fixture("jdk25-summary.txt");
        AtomicInteger calls = new AtomicInteger();
        AtomicLong now = new AtomicLong();
        NmtMetrics metrics = new NmtMetrics(() -> {
            calls.incrementAndGet();
            return text;
        }, now::get);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        metrics.bindTo(registry);

        assertEquals(24657.0 * 1024, registry.get("jvm.nmt.thread.reserved").gauge().value());
        assertEquals(1432.0 * 1024, registry.get("jvm.nmt.thread.stack.committed").gauge().value());
        assertEquals(7747682.0 * 1024, registry.get("jvm.nmt.total.reserved").gauge().value());
        assertEquals(1, calls.get(), "bind and three reads within a second share one summary");

        now.addAndGet(NmtMetrics.MAX_AGE_NANOS);
        registry.get("jvm.nmt.total.committed").gauge().value();
        assertEquals(2, calls.get(), "a summary older than MAX_AGE_NANOS is read again");
    }

    @Test
    void trackingOffRegistersNothing() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new NmtMetrics(() -> "Native memory tracking is not enabled\n", System::nanoTime).bindTo(registry);
        assertTrue(registry.getMeters().isEmpty(), "meters: " + registry.getMeters());
    }
}

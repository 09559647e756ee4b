package io.threadbench.server;

import java.lang.management.ManagementFactory;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

import javax.management.ObjectName;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * NmtMetrics exposes the JVM's Native Memory Tracking summary as gauges:
 * {@code jvm.nmt.total.*}, {@code jvm.nmt.thread.*} and
 * {@code jvm.nmt.thread.stack.*}, reserved and committed, in bytes. They are
 * registered only when tracking is on ({@code -XX:NativeMemoryTracking=summary}).
 * One summary serves all gauges for {@link #MAX_AGE_NANOS}, so a scrape costs
 * one diagnostic command, not six.
 */
public final class NmtMetrics implements MeterBinder {

    /** MAX_AGE_NANOS is how long a parsed summary is reused. */
    public static final long MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final String DIAGNOSTIC_COMMAND = "com.sun.management:type=DiagnosticCommand";

    private final Supplier<String> source;
    private final LongSupplier nanoTime;
    private NmtSummary cached;
    private long cachedAt;

    /** NmtMetrics reads summaries from {@code source}, aging them by {@code nanoTime}. */
    public NmtMetrics(Supplier<String> source, LongSupplier nanoTime) {
        this.source = source;
        this.nanoTime = nanoTime;
    }

    /** fromDiagnosticCommand reads this JVM's summary through the DiagnosticCommand MBean. */
    public static NmtMetrics fromDiagnosticCommand() {
        return new NmtMetrics(NmtMetrics::vmNativeMemorySummary, System::nanoTime);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        if (summary().isEmpty()) {
            return; // tracking off: no gauges rather than gauges that lie
        }
        gauge(registry, "jvm.nmt.total.reserved", NmtSummary::totalReserved,
                "Memory the JVM has reserved, all categories");
        gauge(registry, "jvm.nmt.total.committed", NmtSummary::totalCommitted,
                "Memory the JVM has committed, all categories");
        gauge(registry, "jvm.nmt.thread.reserved", NmtSummary::threadReserved,
                "Memory reserved for threads: stacks, malloc and arenas");
        gauge(registry, "jvm.nmt.thread.committed", NmtSummary::threadCommitted,
                "Memory committed for threads: stacks, malloc and arenas");
        gauge(registry, "jvm.nmt.thread.stack.reserved", NmtSummary::threadStackReserved,
                "Memory reserved for platform thread stacks");
        gauge(registry, "jvm.nmt.thread.stack.committed", NmtSummary::threadStackCommitted,
                "Memory committed for platform thread stacks");
    }

    /** summary is the latest parsed summary, at most MAX_AGE_NANOS old; empty when tracking is off. */
    public synchronized Optional<NmtSummary> summary() {
        long now = nanoTime.getAsLong();
        if (cached == null || now - cachedAt >= MAX_AGE_NANOS) {
            Optional<NmtSummary> fresh = NmtSummary.parse(source.get());
            if (fresh.isEmpty()) {
                return Optional.ofNullable(cached);
            }
            cached = fresh.get();
            cachedAt = now;
        }
        return Optional.of(cached);
    }

    private void gauge(MeterRegistry registry, String name, ToLongFunction<NmtSummary> field, String description) {
        Gauge.builder(name, this, m -> m.summary().map(s -> (double) field.applyAsLong(s)).orElse(Double.NaN))
                .baseUnit(BaseUnits.BYTES)
                .description(description)
                .register(registry);
    }

    /** vmNativeMemorySummary is {@code jcmd VM.native_memory summary}, or "" when it cannot be run. */
    static String vmNativeMemorySummary() {
        try {
            Object out = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName(DIAGNOSTIC_COMMAND), "vmNativeMemory",
                    new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
            return out instanceof String text ? text : "";
        } catch (Exception e) {
            return ""; // no DiagnosticCommand MBean on this JVM: same as tracking off
        }
    }
}

package io.threadbench.server;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;

/**
 * PinnedThreads streams JFR's {@code jdk.VirtualThreadPinned} events in-process
 * and counts them: {@code threadbench_virtual_pinned_total} and the timer
 * {@code threadbench_virtual_pinned_seconds} (count and sum of the time each
 * thread stayed pinned). JFR records the event when a virtual thread tries to
 * park and cannot unmount: on JDK 21-23 inside {@code synchronized}, on every
 * JDK with a native frame (an FFM upcall, a JNI call back into Java) or a class
 * initializer on its stack. A thread blocked inside a native call never tries
 * to park, so {@code /api/native} holds its carrier without an event.
 *
 * <p>It runs in both thread models: the fan-out's unbounded and semaphore
 * modes start virtual threads on a platform-thread server too, and an
 * exposition of the same shape in both models compares like with like. It
 * costs nothing while no virtual thread pins.
 */
public final class PinnedThreads implements MeterBinder, AutoCloseable {

    /** EVENT is the JFR event counted. */
    public static final String EVENT = "jdk.VirtualThreadPinned";

    /**
     * COUNTER is the counter's Micrometer name, threadbench_virtual_pinned_total
     * in Prometheus. Micrometer refuses two meters of different types under one
     * name, so the counter cannot be called threadbench.virtual.pinned like the timer.
     */
    public static final String COUNTER = "threadbench.virtual.pinned.total";

    /** TIMER is the timer's Micrometer name, threadbench_virtual_pinned_seconds in Prometheus. */
    public static final String TIMER = "threadbench.virtual.pinned";

    /** THRESHOLD_ENV names the environment variable with the shortest pin counted, in ms. */
    public static final String THRESHOLD_ENV = "PINNED_THRESHOLD_MS";

    private static final Logger log = LoggerFactory.getLogger(PinnedThreads.class);

    private final Duration threshold;
    private final AtomicLong pinned = new AtomicLong();
    private final AtomicLong pinnedNanos = new AtomicLong();
    private RecordingStream stream;

    /** PinnedThreads counts pins that last at least {@code threshold}; start begins streaming. */
    public PinnedThreads(Duration threshold) {
        this.threshold = threshold;
    }

    /** thresholdMs reads PINNED_THRESHOLD_MS (default 0); a negative or non-numeric value stops the start. */
    public static long thresholdMs(Environment env) {
        long ms = env.getProperty(THRESHOLD_ENV, Long.class, 0L);
        if (ms < 0) {
            throw new IllegalArgumentException(THRESHOLD_ENV + " must be 0 or more, got " + ms);
        }
        return ms;
    }

    /**
     * start opens the stream in the background. Where JFR cannot run (a JVM
     * started with -XX:-FlightRecorder), it logs why and registers no meters,
     * rather than meters that would read 0 whatever happens.
     */
    public synchronized void start() {
        try {
            RecordingStream rs = new RecordingStream();
            rs.enable(EVENT).withThreshold(threshold).withoutStackTrace();
            rs.onEvent(EVENT, this::onEvent);
            rs.startAsync();
            stream = rs;
        } catch (RuntimeException e) {
            log.warn("cannot stream {} from JFR, so no {} meters: {}", EVENT, TIMER, e.toString());
        }
    }

    /** isStreaming says whether the JFR stream runs. */
    public synchronized boolean isStreaming() {
        return stream != null;
    }

    /** pinned is the number of pins counted so far. */
    public long pinned() {
        return pinned.get();
    }

    /** pinnedNanos is the time the counted pins lasted, summed. */
    public long pinnedNanos() {
        return pinnedNanos.get();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        if (!isStreaming()) {
            return;
        }
        FunctionCounter.builder(COUNTER, this, PinnedThreads::pinned)
                .description("Virtual threads that parked while pinned to their carrier (JFR jdk.VirtualThreadPinned)")
                .register(registry);
        FunctionTimer.builder(TIMER, this, PinnedThreads::pinned, PinnedThreads::pinnedNanos, TimeUnit.NANOSECONDS)
                .description("How long virtual threads stayed pinned to their carrier (JFR jdk.VirtualThreadPinned)")
                .register(registry);
    }

    @Override
    public synchronized void close() {
        if (stream != null) {
            stream.close();
            stream = null;
        }
    }

    private void onEvent(RecordedEvent event) {
        record(event.getDuration());
    }

    /**
     * record counts one pin unless it is shorter than the threshold. The
     * stream's own threshold is not enough: JFR hands every stream the events
     * of every recording, and Micrometer's VirtualThreadMetrics records this
     * event too, from 20 ms.
     */
    void record(Duration duration) {
        if (duration.compareTo(threshold) < 0) {
            return;
        }
        pinned.incrementAndGet();
        pinnedNanos.addAndGet(duration.toNanos());
    }
}

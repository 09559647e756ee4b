package io.threadbench.server;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * WakeDelay exposes {@code threadbench_wake_delay_seconds}: how late a thread
 * of the kind that runs requests runs again after a sleep ends, its count and
 * sum. One thread sleeps {@link #PERIOD} over and over; each time, how long
 * past the period it was running again is the wait a woken thread had for a
 * CPU. On virtual threads that is the wait for a carrier: the timer submits
 * the woken thread to the scheduler's queue, behind every virtual thread
 * already there, as the poller submits a thread whose database answered or
 * the pool one it handed a connection to. On platform threads it is the OS
 * scheduler's wake-up latency. Set beside the time a request holds a
 * connection past its query, it says how much of that was a wait to run.
 *
 * <p>It costs one short wake-up every {@link #PERIOD}.
 */
public final class WakeDelay implements MeterBinder, AutoCloseable {

    /** TIMER is the timer's Micrometer name, threadbench_wake_delay_seconds in Prometheus. */
    public static final String TIMER = "threadbench.wake.delay";

    /** PERIOD is how long the probe sleeps each time. */
    static final Duration PERIOD = Duration.ofMillis(10);

    private final AtomicLong wakes = new AtomicLong();
    private final AtomicLong lateNanos = new AtomicLong();
    private final Thread probe;

    /**
     * WakeDelay probes on a virtual thread when {@code model} runs requests on
     * virtual threads, else on a platform thread (Tomcat's pool, Netty's event
     * loops); start begins probing.
     */
    public WakeDelay(ThreadModel model) {
        Thread.Builder builder = model == ThreadModel.VIRTUAL ? Thread.ofVirtual() : Thread.ofPlatform().daemon();
        probe = builder.name("threadbench-wake-delay").unstarted(this::probe);
    }

    /** start starts the probe's thread. */
    public void start() {
        probe.start();
    }

    /** isVirtual says whether the probe runs on a virtual thread. */
    public boolean isVirtual() {
        return probe.isVirtual();
    }

    /** wakes is the number of wake-ups timed so far. */
    public long wakes() {
        return wakes.get();
    }

    /** lateNanos is how late those wake-ups ran, summed. */
    public long lateNanos() {
        return lateNanos.get();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionTimer.builder(TIMER, this, WakeDelay::wakes, WakeDelay::lateNanos, TimeUnit.NANOSECONDS)
                .description("How late a thread of the requests' kind ran again after a sleep of " + PERIOD.toMillis() + " ms ended")
                .register(registry);
    }

    @Override
    public void close() {
        probe.interrupt();
    }

    private void probe() {
        long period = PERIOD.toNanos();
        while (!Thread.currentThread().isInterrupted()) {
            long start = System.nanoTime();
            try {
                Thread.sleep(PERIOD);
            } catch (InterruptedException e) {
                return;
            }
            record(System.nanoTime() - start - period);
        }
    }

    /** record counts one wake-up that ran {@code lateNanos} past its period (a clock's early reading counts 0). */
    void record(long lateNanos) {
        wakes.incrementAndGet();
        this.lateNanos.addAndGet(Math.max(0, lateNanos));
    }
}

package io.threadbench.server;

import java.util.Arrays;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * CarrierThreads exposes {@code threadbench_carrier_threads}: the platform
 * threads that carry virtual threads, alive right now, busy or idle. The
 * scheduler starts them as virtual threads need them, up to its parallelism,
 * plus one for a while each time a virtual thread blocks in a way that
 * cannot unmount and the scheduler compensates. Read at scrape time only.
 * Registered in both thread models: the fan-out starts virtual threads in
 * either.
 */
public final class CarrierThreads implements MeterBinder {

    /** NAME is the gauge's Micrometer name. */
    public static final String NAME = "threadbench.carrier.threads";

    /** CARRIER_CLASS is the class of the default scheduler's threads, the same on JDK 21 and 25. */
    static final String CARRIER_CLASS = "jdk.internal.misc.CarrierThread";

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder(NAME, CarrierThreads::count)
                .description("Carrier threads of virtual threads, alive now")
                .register(registry);
    }

    /**
     * count counts the live carrier threads. Enumerating the root thread group
     * lists the live platform threads without taking their stack traces, which
     * Thread.getAllStackTraces would do for every thread on every scrape.
     */
    public static int count() {
        return carriers(liveThreads());
    }

    /** carriers counts the carrier threads among {@code threads}. */
    static int carriers(Thread[] threads) {
        int carriers = 0;
        for (Thread thread : threads) {
            if (thread.getClass().getName().equals(CARRIER_CLASS)) {
                carriers++;
            }
        }
        return carriers;
    }

    /** liveThreads lists the live platform threads of every group. */
    private static Thread[] liveThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int n = root.enumerate(threads, true);
        while (n == threads.length) { // more threads than room: try again with more
            threads = new Thread[threads.length * 2];
            n = root.enumerate(threads, true);
        }
        return Arrays.copyOf(threads, n);
    }
}

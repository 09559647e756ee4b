package io.threadbench.server;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;

/**
 * FanoutMode is how a fan-out spreads its calls over threads: the seed's
 * three controllers. Each mode waits for all its calls before it returns.
 */
public enum FanoutMode {
    /** POOL is a fixed pool of {@code limit} platform threads, which queues the rest: Executors.newFixedThreadPool. */
    POOL {
        @Override
        void spread(int calls, int limit, Runnable call) {
            // Like any ThreadPoolExecutor, it starts no more threads than it is given tasks.
            try (ExecutorService pool = Executors.newFixedThreadPool(limit,
                    Thread.ofPlatform().name("fanout-pool-", 0).factory())) {
                submit(pool, calls, call);
            }
        }
    },
    /** UNBOUNDED is a virtual thread per call, with nothing to bound how many are in flight. */
    UNBOUNDED {
        @Override
        void spread(int calls, int limit, Runnable call) {
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                submit(threads, calls, call);
            }
        }
    },
    /** SEMAPHORE is a virtual thread per call, each holding one of {@code limit} permits while it calls. */
    SEMAPHORE {
        @Override
        void spread(int calls, int limit, Runnable call) {
            Semaphore permits = new Semaphore(limit);
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                submit(threads, calls, () -> {
                    permits.acquireUninterruptibly();
                    try {
                        call.run();
                    } finally {
                        permits.release();
                    }
                });
            }
        }
    };

    /** PARAM is the mode parameter: every target takes all five words; virtual and goroutines mean unbounded. */
    public static final WordParam PARAM = new WordParam("mode", "unbounded",
            List.of("pool", "unbounded", "semaphore", "virtual", "goroutines"));

    /** of returns the mode a PARAM word names. */
    public static FanoutMode of(String word) {
        return switch (word) {
            case "pool" -> POOL;
            case "semaphore" -> SEMAPHORE;
            case "unbounded", "virtual", "goroutines" -> UNBOUNDED;
            default -> throw new IllegalArgumentException("no fan-out mode " + word);
        };
    }

    /** label is the canonical word the response reports. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** spread runs {@code call} {@code calls} times with this mode's concurrency and waits for all of them. */
    abstract void spread(int calls, int limit, Runnable call);

    /** submit hands the executor {@code calls} calls; closing it then waits for them. */
    private static void submit(ExecutorService executor, int calls, Runnable call) {
        for (int i = 0; i < calls; i++) {
            executor.execute(call);
        }
    }
}

package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** FanoutModeTest checks each mode's concurrency and threads with a call that only sleeps. */
class FanoutModeTest {

    private static final int CALLS = 12;
    private static final int LIMIT = 3;
    private static final long CALL_MS = 40;

    @ParameterizedTest
    @CsvSource({"pool,POOL", "unbounded,UNBOUNDED", "semaphore,SEMAPHORE", "virtual,UNBOUNDED", "goroutines,UNBOUNDED"})
    void everyWordNamesAMode(String word, FanoutMode want) {
        assertEquals(want, FanoutMode.of(FanoutMode.PARAM.parse("mode=" + word)));
    }

    @Test
    void unboundedByDefault() {
        assertEquals(FanoutMode.UNBOUNDED, FanoutMode.of(FanoutMode.PARAM.parse(null)));
        assertEquals("unbounded", FanoutMode.UNBOUNDED.label());
    }

    static Stream<Arguments> modes() {
        return Stream.of(
                // limit platform threads, the rest queued
                Arguments.of(FanoutMode.POOL, LIMIT, false),
                // all calls at once
                Arguments.of(FanoutMode.UNBOUNDED, CALLS, true),
                // a virtual thread per call, limit of them calling
                Arguments.of(FanoutMode.SEMAPHORE, LIMIT, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void spreadsCalls(FanoutMode mode, int wantPeak, boolean wantVirtual) {
        Tally tally = new Tally();
        Set<Boolean> virtual = ConcurrentHashMap.newKeySet();
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        long start = System.nanoTime();
        mode.spread(CALLS, LIMIT, () -> {
            tally.enter();
            virtual.add(Thread.currentThread().isVirtual());
            threads.add(Thread.currentThread());
            sleep();
            tally.leave(CallOutcome.OK);
        });
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(CALLS, tally.count(CallOutcome.OK), "all calls done when spread returns");
        assertTrue(tally.peak() > 1 && tally.peak() <= wantPeak, "peak " + tally.peak() + ", want 2 to " + wantPeak);
        assertEquals(Set.of(wantVirtual), virtual, "virtual threads");
        assertTrue(tookMs >= (CALLS / wantPeak) * CALL_MS, "took " + tookMs + " ms");
        if (mode == FanoutMode.POOL) {
            assertEquals(LIMIT, threads.size(), "a pool of limit threads");
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(CALL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

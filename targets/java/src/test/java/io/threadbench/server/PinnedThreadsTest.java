package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class PinnedThreadsTest {

    private final PinnedThreads pinned = new PinnedThreads(Duration.ZERO);

    @AfterEach
    void close() {
        pinned.close();
    }

    @Test
    void countsAParkInAClassInitializer() throws Exception {
        pinned.start();
        assertTrue(pinned.isStreaming(), "JFR should stream here");
        Pins.inClassInitializer();
        assertCountedAPin();
    }

    @Test
    void countsAParkUnderANativeFrame() throws Exception {
        assumeTrue(Runtime.version().feature() >= 22, "FFM upcalls are final from JDK 22");
        pinned.start();
        Pins.underNativeFrame();
        assertCountedAPin();
    }

    /**
     * assertCountedAPin waits for JFR to deliver (about a second) and checks the pin's count and duration. JFR times
     * the park, which begins after the sleep has taken its deadline: a pin of a 30 ms sleep read 29.93 ms once (a
     * clean-clone run on busy CPUs), so the pin is held to nine tenths of the sleep.
     */
    private void assertCountedAPin() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pinned.pinned() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(pinned.pinned() >= 1, "no pin counted");
        assertTrue(pinned.pinnedNanos() >= TimeUnit.MILLISECONDS.toNanos(Pins.PIN_MS) * 9 / 10,
                "pinned for " + pinned.pinnedNanos() + " ns, want at least nine tenths of the " + Pins.PIN_MS + " ms sleep");
    }

    @Test
    void leavesOutPinsBelowItsThreshold() {
        PinnedThreads from50ms = new PinnedThreads(Duration.ofMillis(50));
        from50ms.record(Duration.ofMillis(20)); // Micrometer's recording would hand this one over
        from50ms.record(Duration.ofMillis(50));
        from50ms.record(Duration.ofMillis(70));
        assertEquals(2, from50ms.pinned());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(120), from50ms.pinnedNanos());
    }

    @Test
    void registersTheCounterAndTimerWhenStreaming() {
        pinned.start();
        pinned.record(Duration.ofMillis(5));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        pinned.bindTo(registry);
        assertEquals(1.0, registry.get(PinnedThreads.COUNTER).functionCounter().count());
        assertEquals(1.0, registry.get(PinnedThreads.TIMER).functionTimer().count());
        assertEquals(5.0, registry.get(PinnedThreads.TIMER).functionTimer().totalTime(TimeUnit.MILLISECONDS));
    }

    @Test
    void registersNothingWithoutAStream() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        pinned.bindTo(registry); // never started
        assertTrue(registry.getMeters().isEmpty(), "meters without a stream: " + registry.getMeters());
    }

    @Test
    void thresholdFromTheEnvironment() {
        assertEquals(0, PinnedThreads.thresholdMs(new MockEnvironment()));
        assertEquals(20, PinnedThreads.thresholdMs(new MockEnvironment().withProperty("PINNED_THRESHOLD_MS", "20")));
        assertThrows(IllegalArgumentException.class,
                () -> PinnedThreads.thresholdMs(new MockEnvironment().withProperty("PINNED_THRESHOLD_MS", "-1")));
    }
}

package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class WakeDelayTest {

    @Test
    void probesOnTheRequestsKindOfThread() {
        try (WakeDelay virtual = new WakeDelay(ThreadModel.VIRTUAL);
                WakeDelay platform = new WakeDelay(ThreadModel.PLATFORM);
                WakeDelay reactive = new WakeDelay(ThreadModel.REACTIVE)) {
            assertTrue(virtual.isVirtual());
            assertFalse(platform.isVirtual());
            assertFalse(reactive.isVirtual(), "Netty's event loops are platform threads");
        }
    }

    @Test
    void timerReadsTheWakesAndHowLateTheyRan() {
        WakeDelay delay = new WakeDelay(ThreadModel.VIRTUAL);
        delay.record(3_000_000);
        delay.record(-1_000); // an early clock reading is not a negative wait
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        delay.bindTo(registry);
        assertEquals(2, registry.get(WakeDelay.TIMER).functionTimer().count());
        assertEquals(3.0, registry.get(WakeDelay.TIMER).functionTimer().totalTime(TimeUnit.MILLISECONDS), 1e-9);
    }

    /**
     * A virtual probe woken while every carrier spins, more spinners queued
     * behind them, runs only when a carrier frees: its wake-ups are late by
     * about the spinners' time, where an idle scheduler wakes it within
     * microseconds.
     */
    @Test
    void virtualProbeWaitsForACarrier() throws InterruptedException {
        try (WakeDelay delay = new WakeDelay(ThreadModel.VIRTUAL)) {
            delay.start();
            while (delay.wakes() < 3) {
                Thread.sleep(5);
            }
            List<Thread> spinners = new ArrayList<>();
            for (int i = 0; i < 4 * Runtime.getRuntime().availableProcessors(); i++) {
                spinners.add(Thread.ofVirtual().start(() -> spin(TimeUnit.MILLISECONDS.toNanos(60))));
            }
            long wakes = delay.wakes();
            long late = delay.lateNanos();
            for (Thread spinner : spinners) {
                spinner.join();
            }
            Thread.sleep(3 * WakeDelay.PERIOD.toMillis()); // the probe's wake-up queued behind them
            double meanMs = (delay.lateNanos() - late) / 1e6 / Math.max(1, delay.wakes() - wakes);
            assertTrue(meanMs >= 20, "a probe woken behind spinning virtual threads ran " + meanMs + " ms late on average, want 20 ms or more");
        }
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}

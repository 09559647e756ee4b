package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class CarrierThreadsTest {

    @Test
    void countsTheCarrierOfARunningVirtualThread() throws InterruptedException {
        CountDownLatch counted = new CountDownLatch(1);
        int[] seen = new int[1];
        // Counted from the virtual thread itself, so its carrier is surely alive.
        Thread.ofVirtual().start(() -> {
            seen[0] = CarrierThreads.count();
            counted.countDown();
        });
        counted.await();
        assertTrue(seen[0] >= 1, "carriers while a virtual thread runs: " + seen[0]);
    }

    @Test
    void countsNoOtherThread() {
        Thread unstarted = Thread.ofPlatform().unstarted(() -> { });
        assertEquals(0, CarrierThreads.carriers(new Thread[] {Thread.currentThread(), unstarted}));
    }

    @Test
    void gaugeReadsTheCount() throws InterruptedException {
        Thread.ofVirtual().start(() -> { }).join(); // the scheduler keeps its carrier a while
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new CarrierThreads().bindTo(registry);
        assertTrue(registry.get(CarrierThreads.NAME).gauge().value() >= 1);
    }
}

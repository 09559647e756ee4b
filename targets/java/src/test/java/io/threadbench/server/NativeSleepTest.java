package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class NativeSleepTest {

    @Test
    void availableFromJdk22() {
        assumeTrue(Runtime.version().feature() >= 22, "FFM is final from JDK 22");
        NativeSleep sleep = NativeSleep.load();
        assertTrue(sleep.isAvailable(), "unavailable: " + sleep.unavailableReason());
    }

    @Test
    void sleepsAtLeastTheDuration() {
        NativeSleep sleep = NativeSleep.load();
        assumeTrue(sleep.isAvailable(), "no FFM here: " + sleep.unavailableReason());
        long start = System.nanoTime();
        sleep.sleep(60);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs >= 60 && tookMs < 1000, "took " + tookMs + " ms");
    }

    @Test
    void unavailableSaysWhy() {
        NativeSleep sleep = NativeSleep.unavailable("no FFM on this JVM");
        NativeSleep.UnavailableException e = assertThrows(NativeSleep.UnavailableException.class, () -> sleep.sleep(1));
        assertEquals("no FFM on this JVM", e.getMessage());
    }
}

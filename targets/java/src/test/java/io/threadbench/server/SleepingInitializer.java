package io.threadbench.server;

/**
 * SleepingInitializer sleeps Pins.PIN_MS in its class initializer. Pins
 * defines it anew in a fresh class loader for each pin, so it uses nothing
 * but the JDK: that loader's copy is in another runtime package than the
 * test classes.
 */
final class SleepingInitializer {

    static {
        sleep();
    }

    private SleepingInitializer() {
    }

    static void sleep() {
        try {
            Thread.sleep(Pins.PIN_MS); // a constant, so compiled in: no reference to Pins
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package io.threadbench.server;

import java.util.concurrent.locks.ReentrantLock;

/**
 * SleepWork is the blocking sleeps of {@code /api/synchronized} and
 * {@code /api/lock}, shared by every thread model's handlers: each blocks
 * the calling thread, which is what those endpoints measure.
 */
public final class SleepWork {

    /**
     * escapedMonitor only exists so the per-request monitor escapes: C2 elides
     * locks on objects that never leave the method, and synchronized would then
     * measure nothing once the handler is compiled.
     */
    @SuppressWarnings("unused")
    private static Object escapedMonitor;

    private SleepWork() {
    }

    /**
     * inSynchronized sleeps holding a monitor nobody else can contend for:
     * it measures only the cost of sleeping inside synchronized, which pins a
     * virtual thread's carrier on JDK 21-23 and not since JDK 24 (JEP 491).
     */
    public static void inSynchronized(int millis) throws InterruptedException {
        Object monitor = new Object();
        escapedMonitor = monitor;
        synchronized (monitor) {
            Thread.sleep(millis);
        }
    }

    /**
     * holdingLock sleeps holding a ReentrantLock made for this request, the fix
     * seed 003 recommends for synchronized: a virtual thread that sleeps
     * holding one unmounts and frees its carrier on every JDK.
     */
    public static void holdingLock(int millis) throws InterruptedException {
        ReentrantLock lock = new ReentrantLock();
        escapedMonitor = lock;
        lock.lock();
        try {
            Thread.sleep(millis);
        } finally {
            lock.unlock();
        }
    }
}

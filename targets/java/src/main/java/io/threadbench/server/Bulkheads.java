package io.threadbench.server;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;

/**
 * Bulkheads hands out the permits of {@code /api/downstream}: one semaphore
 * per distinct limit, shared by every request that asks for that limit.
 */
public final class Bulkheads {

    private final ConcurrentMap<Integer, Semaphore> byLimit = new ConcurrentHashMap<>();

    /** of returns the semaphore of {@code limit} permits, made on first use. */
    public Semaphore of(int limit) {
        return byLimit.computeIfAbsent(limit, Semaphore::new);
    }
}

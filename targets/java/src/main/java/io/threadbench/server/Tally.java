package io.threadbench.server;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** Tally counts a fan-out's outcomes and its calls in flight, from every thread at once. */
final class Tally {

    private final AtomicIntegerArray outcomes = new AtomicIntegerArray(CallOutcome.values().length);
    private final AtomicInteger inflight = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();

    /** enter counts a call going out and raises the peak if it is one. */
    void enter() {
        peak.accumulateAndGet(inflight.incrementAndGet(), Math::max);
    }

    /** leave counts a call coming back with its outcome. */
    void leave(CallOutcome outcome) {
        inflight.decrementAndGet();
        outcomes.incrementAndGet(outcome.ordinal());
    }

    /** count is how many calls ended with {@code outcome}. */
    int count(CallOutcome outcome) {
        return outcomes.get(outcome.ordinal());
    }

    /** peak is the most calls that were in flight at once. */
    int peak() {
        return peak.get();
    }
}

package io.threadbench.server;

import java.util.concurrent.Semaphore;

/**
 * DownstreamRequest is a {@code /api/downstream} request's parameters, read
 * in the contract's table order: one call of {@code durationMs} with
 * {@code timeoutMs} to read its answer, through a bulkhead of {@code limit}
 * permits when limit &gt; 0.
 */
public record DownstreamRequest(int durationMs, int limit, int timeoutMs) {

    /** parse reads the parameters from a raw query string (null when there is none), or throws BadParameterException. */
    public static DownstreamRequest parse(String rawQuery) {
        int durationMs = IntParam.DURATION.parse(rawQuery);
        int limit = IntParam.BULKHEAD_LIMIT.parse(rawQuery);
        int timeoutMs = IntParam.TIMEOUT.parse(rawQuery);
        return new DownstreamRequest(durationMs, limit, timeoutMs);
    }

    /** bulkheaded says whether the call holds one of a shared bulkhead's permits. */
    public boolean bulkheaded() {
        return limit > 0;
    }

    /**
     * callBlocking makes the call on the calling thread, which blocks for it
     * and, with a bulkhead, for one of {@code bulkheads}' permits first, however long that takes.
     */
    public Downstream.Call callBlocking(Downstream downstream, Bulkheads bulkheads) throws InterruptedException {
        if (!bulkheaded()) {
            return downstream.heavy(durationMs, timeoutMs);
        }
        Semaphore permits = bulkheads.of(limit);
        permits.acquire();
        try {
            return downstream.heavy(durationMs, timeoutMs);
        } finally {
            permits.release();
        }
    }

    /** answer is the work response of a call that succeeded; any other outcome throws its DownstreamException. */
    public WorkResponse answer(String target, Downstream.Call call) {
        if (call.outcome() != CallOutcome.OK) {
            throw DownstreamException.failed(call, timeoutMs);
        }
        return WorkResponse.of(target, "downstream", durationMs);
    }
}

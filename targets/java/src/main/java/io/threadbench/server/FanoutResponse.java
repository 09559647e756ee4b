package io.threadbench.server;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * FanoutResponse is the body of {@code /api/fanout}, fields in the order of the
 * contract (the Go target writes the same, without {@code virtual}).
 * {@code limit} is 0 for unbounded, which applies none.
 */
@JsonPropertyOrder({"target", "endpoint", "mode", "limit", "calls", "succeeded", "failed", "failures",
        "elapsedMs", "peakConcurrent", "callHistogram", "doneHistogram", "thread", "virtual"})
public record FanoutResponse(
        String target,
        String endpoint,
        String mode,
        int limit,
        int calls,
        int succeeded,
        int failed,
        Failures failures,
        long elapsedMs,
        int peakConcurrent,
        String callHistogram,
        String doneHistogram,
        String thread,
        boolean virtual) {

    /** Failures counts the failed calls by what went wrong. */
    @JsonPropertyOrder({"readTimeout", "connectTimeout", "refused", "other"})
    public record Failures(int readTimeout, int connectTimeout, int refused, int other) {

        /** total is the number of failed calls. */
        int total() {
            return readTimeout + connectTimeout + refused + other;
        }
    }

    /**
     * run makes {@code calls} calls to the downstream's heavy endpoint, spread
     * as {@code mode} says, waits for all of them and describes them. The
     * thread is the caller's, which is the handler's.
     */
    public static FanoutResponse run(String target, Downstream downstream, FanoutMode mode, int calls, int limit,
            int durationMs, int timeoutMs) {
        Tally tally = new Tally();
        CallTimes times = new CallTimes(calls);
        long start = System.nanoTime();
        mode.spread(calls, limit, () -> {
            long sent = System.nanoTime();
            tally.enter();
            tally.leave(downstream.heavy(durationMs, timeoutMs).outcome());
            times.add(start, sent, System.nanoTime());
        });
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        Failures failures = new Failures(tally.count(CallOutcome.READ_TIMEOUT), tally.count(CallOutcome.CONNECT_TIMEOUT),
                tally.count(CallOutcome.REFUSED), tally.count(CallOutcome.OTHER));
        Thread current = Thread.currentThread();
        return new FanoutResponse(target, "fanout", mode.label(), mode == FanoutMode.UNBOUNDED ? 0 : limit, calls,
                tally.count(CallOutcome.OK), failures.total(), failures, elapsedMs, tally.peak(),
                times.calls(), times.done(), current.toString(), current.isVirtual());
    }
}

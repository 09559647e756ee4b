package io.threadbench.server;

/**
 * FanoutRequest is a {@code /api/fanout} request's parameters, read in the
 * contract's table order, so that a request with two bad ones is told about
 * the same one by every target.
 */
public record FanoutRequest(int calls, FanoutMode mode, int limit, int timeoutMs, int durationMs) {

    /** parse reads the parameters from a raw query string (null when there is none), or throws BadParameterException. */
    public static FanoutRequest parse(String rawQuery) {
        int calls = IntParam.CALLS.parse(rawQuery);
        FanoutMode mode = FanoutMode.of(FanoutMode.PARAM.parse(rawQuery));
        int limit = IntParam.FANOUT_LIMIT.parse(rawQuery);
        int timeoutMs = IntParam.TIMEOUT.parse(rawQuery);
        int durationMs = IntParam.FANOUT_DURATION.parse(rawQuery);
        return new FanoutRequest(calls, mode, limit, timeoutMs, durationMs);
    }

    /**
     * run makes the calls through {@code downstream} on the calling thread,
     * which blocks until every call is done, and describes them as {@code target}.
     */
    public FanoutResponse run(String target, Downstream downstream) {
        return FanoutResponse.run(target, downstream, mode, calls, limit, durationMs, timeoutMs);
    }
}

package io.threadbench.server;

import org.slf4j.Logger;

/**
 * HeavyRequest is a {@code /api/heavy} request's parameters, read in the
 * contract's table order: {@code times} waits of {@code millis} in a row,
 * then one log line when {@code logged}. Each thread model waits its own way.
 */
public record HeavyRequest(int millis, int times, boolean logged) {

    /** parse reads the parameters from a raw query string (null when there is none), or throws BadParameterException. */
    public static HeavyRequest parse(String rawQuery) {
        int millis = IntParam.DURATION.parse(rawQuery);
        int times = IntParam.TIMES.parse(rawQuery);
        boolean logged = IntParam.LOG.parse(rawQuery) == 1;
        return new HeavyRequest(millis, times, logged);
    }

    /** durationMs is the time waited in all, which the response reports. */
    public long durationMs() {
        return (long) millis * times;
    }

    /** logDone writes seed 004's "Done" line through {@code log} when the request asked for it. */
    public void logDone(Logger log) {
        if (logged) {
            log.info("heavy: slept {} ms x {}: Done", millis, times);
        }
    }
}

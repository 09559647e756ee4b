package io.threadbench.server;

/**
 * IntParam is an integer query parameter of the contract with its default and
 * inclusive range, as internal/bench/endpoint.go's table gives them. It reads
 * the raw query string itself, like the Go target (see {@link RawQuery}).
 */
public record IntParam(String name, int defaultValue, int min, int max) {

    /** MAX_DURATION is the longest sleep the contract allows, in ms. */
    public static final int MAX_DURATION = 60_000;

    /** MAX_CALLS bounds fan-out calls per request and bulkhead permits. */
    public static final int MAX_CALLS = 10_000;

    /** DURATION is the sleep in milliseconds of heavy, native, synchronized, lock and downstream. */
    public static final IntParam DURATION = new IntParam("duration", 100, 0, MAX_DURATION);

    /** TIMES is how many sleeps of DURATION heavy makes in a row (seed 004's handler sleeps twice). */
    public static final IntParam TIMES = new IntParam("times", 1, 1, 100);

    /** LOG is 1 when heavy logs a line per request (seed 004's {@code log.info("Done")}), else 0. */
    public static final IntParam LOG = new IntParam("log", 0, 0, 1);

    /** WORK is the number of SHA-256 rounds of cpu. */
    public static final IntParam WORK = new IntParam("work", 1000, 0, 100_000);

    /** CALLS is how many downstream calls one fan-out makes. */
    public static final IntParam CALLS = new IntParam("calls", 100, 1, MAX_CALLS);

    /** FANOUT_LIMIT is the pool size or the permits of a fan-out. */
    public static final IntParam FANOUT_LIMIT = new IntParam("limit", 100, 1, MAX_CALLS);

    /** FANOUT_DURATION is how long the downstream sleeps on each fan-out call, in ms. */
    public static final IntParam FANOUT_DURATION = new IntParam("duration", 3000, 0, MAX_DURATION);

    /** TIMEOUT is a downstream call's read timeout in ms, for fanout and downstream. */
    public static final IntParam TIMEOUT = new IntParam("timeout", 5000, 1, MAX_DURATION);

    /** BULKHEAD_LIMIT is the permits of downstream's shared bulkhead; 0 is none. */
    public static final IntParam BULKHEAD_LIMIT = new IntParam("limit", 0, 0, MAX_CALLS);

    /** DELAY is how long db sleeps in the database before it reads its row, in ms. */
    public static final IntParam DELAY = new IntParam("delay", 0, 0, MAX_DURATION);

    /**
     * parse returns the parameter's value in {@code rawQuery} (undecoded, as
     * HttpServletRequest.getQueryString gives it, null when there is none),
     * its default when absent, or throws BadParameterException. A repeated
     * parameter is ambiguous and rejected.
     */
    public int parse(String rawQuery) {
        RawQuery.Found found = RawQuery.find(rawQuery, name);
        if (found.count() == 0) {
            return defaultValue;
        }
        if (found.count() > 1) {
            throw invalid("got " + found.count() + " values");
        }
        String value = RawQuery.unescapeOrNull(found.raw());
        if (value == null) {
            throw invalid("got " + ErrorBody.quote(found.raw()));
        }
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // falls through to the contract's message
        }
        throw invalid("got " + ErrorBody.quote(value));
    }

    private BadParameterException invalid(String given) {
        return new BadParameterException(name + " must be an integer from " + min + " to " + max + ", " + given);
    }
}

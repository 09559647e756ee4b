package io.threadbench.server;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * IntParam is an integer query parameter of the contract with its default and
 * inclusive range. It reads the raw query string itself, like the Go target:
 * Tomcat's own parameter parsing throws on a bad escape anywhere in the
 * query, and the 400 body and message must match the Go target's word for
 * word.
 */
public record IntParam(String name, int defaultValue, int min, int max) {

    /** DURATION is the sleep in milliseconds of heavy, native and synchronized. */
    public static final IntParam DURATION = new IntParam("duration", 100, 0, 60_000);

    /** WORK is the number of SHA-256 rounds of cpu. */
    public static final IntParam WORK = new IntParam("work", 1000, 0, 100_000);

    /**
     * parse returns the parameter's value in {@code rawQuery} (undecoded, as
     * HttpServletRequest.getQueryString gives it, null when there is none),
     * its default when absent, or throws BadParameterException. A repeated
     * parameter is ambiguous and rejected.
     */
    public int parse(String rawQuery) {
        String raw = null;
        int count = 0;
        for (String pair : rawQuery == null || rawQuery.isEmpty() ? new String[0] : rawQuery.split("&", -1)) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            if (name.equals(unescapeOrNull(key))) {
                raw = eq < 0 ? "" : pair.substring(eq + 1);
                count++;
            }
        }
        if (count == 0) {
            return defaultValue;
        }
        if (count > 1) {
            throw invalid("got " + count + " values");
        }
        String value = unescapeOrNull(raw);
        if (value == null) {
            throw invalid("got " + ErrorBody.quote(raw));
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

    /** unescapeOrNull decodes a query component, or returns null when its escapes are malformed. */
    private static String unescapeOrNull(String s) {
        if (s.indexOf('%') < 0 && s.indexOf('+') < 0) {
            return s;
        }
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}

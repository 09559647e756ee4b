package io.threadbench.server;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * RawQuery finds a parameter in a raw (undecoded) query string, as the Go
 * target's lookup does: Tomcat's own parameter parsing throws on a bad escape
 * anywhere in the query, and the 400s must match the Go target's word for word.
 */
final class RawQuery {

    private RawQuery() {
    }

    /** Found is a parameter's raw value (its last occurrence, still escaped) and how many times it occurs. */
    record Found(String raw, int count) {
    }

    /**
     * find looks {@code name} up in {@code rawQuery} (as
     * HttpServletRequest.getQueryString gives it, null when there is none).
     * A parameter without {@code =} has the value "".
     */
    static Found find(String rawQuery, String name) {
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
        return new Found(raw, count);
    }

    /** unescapeOrNull decodes a query component, or returns null when its escapes are malformed. */
    static String unescapeOrNull(String s) {
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

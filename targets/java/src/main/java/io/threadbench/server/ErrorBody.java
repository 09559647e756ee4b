package io.threadbench.server;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** ErrorBody is the contract's error response: {"status":400,"error":"..."}. */
@JsonPropertyOrder({"status", "error"})
public record ErrorBody(int status, String error) {

    private static final int MAX_QUOTED = 40;

    /**
     * quote writes {@code s} in double quotes with quotes, backslashes and
     * control characters escaped (as Go's strconv.Quote does for them), cut
     * short so a huge query cannot make a huge response.
     */
    public static String quote(String s) {
        boolean cut = s.length() > MAX_QUOTED;
        String shown = cut ? s.substring(0, MAX_QUOTED) : s;
        StringBuilder b = new StringBuilder(shown.length() + 8).append('"');
        for (int i = 0; i < shown.length(); i++) {
            char c = shown.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case '\u0007' -> b.append("\\a");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                case '\u000b' -> b.append("\\v");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        b.append(String.format("\\x%02x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
        return cut ? b.append("...").toString() : b.toString();
    }
}


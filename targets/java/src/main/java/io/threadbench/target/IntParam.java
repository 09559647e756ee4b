package io.threadbench.target;

/**
 * IntParam is an integer query parameter of the contract with its default and
 * inclusive range. Parsing is explicit so every bad value gets the contract's
 * 400 body, not Spring's conversion error.
 */
public record IntParam(String name, int defaultValue, int min, int max) {

    /** DURATION is the sleep in milliseconds of heavy, native and synchronized. */
    public static final IntParam DURATION = new IntParam("duration", 100, 0, 60_000);

    /** WORK is the number of SHA-256 rounds of cpu. */
    public static final IntParam WORK = new IntParam("work", 1000, 0, 100_000);

    /**
     * parse reads the parameter's values as the servlet API gives them (null
     * when absent). Absent means the default; a repeated parameter is
     * ambiguous and rejected like any other bad value.
     */
    public int parse(String[] values) {
        if (values == null) {
            return defaultValue;
        }
        String raw = String.join(",", values);
        if (values.length != 1) {
            throw invalid(raw);
        }
        int value;
        try {
            value = Integer.parseInt(raw);
        } catch (NumberFormatException e) {
            throw invalid(raw);
        }
        if (value < min || value > max) {
            throw invalid(raw);
        }
        return value;
    }

    private BadParameterException invalid(String raw) {
        return new BadParameterException(
                name + " must be an integer from " + min + " to " + max + ", got \"" + raw + "\"");
    }
}

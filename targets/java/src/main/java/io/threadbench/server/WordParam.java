package io.threadbench.server;

import java.util.List;

/**
 * WordParam is a query parameter of the contract that takes one of a few
 * words (case-sensitive), with its default. It reads the raw query like
 * {@link IntParam} and words its 400 as internal/bench's Param.Check does.
 */
public record WordParam(String name, String defaultValue, List<String> values) {

    /** WordParam copies {@code values}, so the record stays immutable. */
    public WordParam {
        values = List.copyOf(values);
    }

    /**
     * parse returns the parameter's value in {@code rawQuery}, its default
     * when absent, or throws BadParameterException.
     */
    public String parse(String rawQuery) {
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
        if (!values.contains(value)) {
            throw invalid("got " + ErrorBody.quote(value));
        }
        return value;
    }

    private BadParameterException invalid(String given) {
        return new BadParameterException(name + " must be one of " + String.join(", ", values) + ", " + given);
    }
}

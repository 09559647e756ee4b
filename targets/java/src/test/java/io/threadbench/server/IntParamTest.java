package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class IntParamTest {

    static Stream<Arguments> valid() {
        return Stream.of(
                Arguments.of(null, 100),                  // no query: the default
                Arguments.of("", 100),                    // empty query: the default
                Arguments.of("other=5", 100),             // another parameter only
                Arguments.of("duration=0", 0),            // lower bound
                Arguments.of("duration=60000", 60000),    // upper bound
                Arguments.of("x=1&duration=250&y", 250),  // among others
                Arguments.of("dur%61tion=7", 7),          // escaped name
                Arguments.of("%zz=1&duration=3", 3));     // a bad escape elsewhere is not ours to judge
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource
    void valid(String query, int want) {
        assertEquals(want, IntParam.DURATION.parse(query));
    }

    static Stream<Arguments> invalid() {
        String prefix = "duration must be an integer from 0 to 60000, ";
        return Stream.of(
                Arguments.of("duration=abc", prefix + "got \"abc\""),
                Arguments.of("duration=-1", prefix + "got \"-1\""),
                Arguments.of("duration=60001", prefix + "got \"60001\""),
                Arguments.of("duration=1.5", prefix + "got \"1.5\""),
                Arguments.of("duration=", prefix + "got \"\""),
                Arguments.of("duration", prefix + "got \"\""),
                Arguments.of("duration=+5", prefix + "got \" 5\""),               // + decodes to a space
                Arguments.of("duration=%zz", prefix + "got \"%zz\""),             // bad escape: shown raw
                Arguments.of("duration=99999999999", prefix + "got \"99999999999\""),
                Arguments.of("duration=1&duration=2", prefix + "got 2 values"),
                Arguments.of("duration=%22x%5C%0A", prefix + "got \"\\\"x\\\\\\n\""), // escaped like Go's %q
                Arguments.of("duration=" + "9".repeat(100), prefix + "got \"" + "9".repeat(40) + "\"..."));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void invalid(String query, String want) {
        BadParameterException e = assertThrows(BadParameterException.class, () -> IntParam.DURATION.parse(query));
        assertEquals(want, e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void work(String query, String want) {
        BadParameterException e = assertThrows(BadParameterException.class, () -> IntParam.WORK.parse(query));
        assertEquals(want, e.getMessage());
    }

    static Stream<Arguments> work() {
        return Stream.of(
                Arguments.of("work=100001", "work must be an integer from 0 to 100000, got \"100001\""),
                Arguments.of("work=x", "work must be an integer from 0 to 100000, got \"x\""));
    }
}

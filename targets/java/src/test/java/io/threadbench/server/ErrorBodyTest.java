package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ErrorBodyTest {

    // Each expectation is what Go's strconv.Quote gives, as the Go target's messages use it.
    static Stream<Arguments> quote() {
        return Stream.of(
                Arguments.of("", "\"\""),
                Arguments.of("abc", "\"abc\""),
                Arguments.of("a\"b\\c", "\"a\\\"b\\\\c\""),
                Arguments.of("\n\r\t\u0007\b\f\u000b", "\"\\n\\r\\t\\a\\b\\f\\v\""),
                Arguments.of("\u0000\u001f\u007f", "\"\\x00\\x1f\\x7f\""),
                Arguments.of("é", "\"é\""),                                            // printable: kept
                Arguments.of("x".repeat(41), "\"" + "x".repeat(40) + "\"..."));        // cut at 40
    }

    @ParameterizedTest
    @MethodSource
    void quote(String in, String want) {
        assertEquals(want, ErrorBody.quote(in));
    }
}

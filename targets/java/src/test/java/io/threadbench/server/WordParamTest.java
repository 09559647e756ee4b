package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class WordParamTest {

    private static final String WORDS = "mode must be one of pool, unbounded, semaphore, virtual, goroutines, ";

    static Stream<Arguments> valid() {
        return Stream.of(
                Arguments.of(null, "unbounded"),             // no query: the default
                Arguments.of("calls=3", "unbounded"),        // another parameter only
                Arguments.of("mode=pool", "pool"),
                Arguments.of("calls=3&mode=goroutines", "goroutines"),
                Arguments.of("mo%64e=semaphore", "semaphore")); // escaped name
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource
    void valid(String query, String want) {
        assertEquals(want, FanoutMode.PARAM.parse(query));
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                Arguments.of("mode=threads", WORDS + "got \"threads\""),
                Arguments.of("mode=Pool", WORDS + "got \"Pool\""),        // words are case-sensitive
                Arguments.of("mode=", WORDS + "got \"\""),
                Arguments.of("mode=%zz", WORDS + "got \"%zz\""),         // bad escape: shown raw
                Arguments.of("mode=pool&mode=pool", WORDS + "got 2 values"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void invalid(String query, String want) {
        BadParameterException e = assertThrows(BadParameterException.class, () -> FanoutMode.PARAM.parse(query));
        assertEquals(want, e.getMessage());
    }
}

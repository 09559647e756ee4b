package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ThreadModelTest {

    static Stream<Arguments> parse() {
        return Stream.of(
                Arguments.of(null, ThreadModel.PLATFORM),     // unset: the contract's default
                Arguments.of("", ThreadModel.PLATFORM),
                Arguments.of("platform", ThreadModel.PLATFORM),
                Arguments.of("virtual", ThreadModel.VIRTUAL),
                Arguments.of(" Virtual ", ThreadModel.VIRTUAL)); // forgiving about case and blanks
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource
    void parse(String value, ThreadModel want) {
        assertEquals(want, ThreadModel.parse(value));
    }

    @ParameterizedTest
    @ValueSource(strings = {"loom", "true", "virtual-threads"})
    void parseRejects(String value) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ThreadModel.parse(value));
        assertEquals("THREAD_MODEL must be \"platform\" or \"virtual\", got \"" + value + "\"", e.getMessage());
    }

    @Test
    void defaultTargetNames() {
        assertEquals("java-platform", ThreadModel.PLATFORM.defaultTargetName());
        assertEquals("java-virtual", ThreadModel.VIRTUAL.defaultTargetName());
    }
}

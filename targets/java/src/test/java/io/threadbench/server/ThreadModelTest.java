package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.mock.env.MockEnvironment;

class ThreadModelTest {

    static Stream<Arguments> parse() {
        return Stream.of(
                Arguments.of(null, ThreadModel.PLATFORM),     // unset: the contract's default
                Arguments.of("", ThreadModel.PLATFORM),
                Arguments.of("platform", ThreadModel.PLATFORM),
                Arguments.of("virtual", ThreadModel.VIRTUAL),
                Arguments.of(" Virtual ", ThreadModel.VIRTUAL), // forgiving about case and blanks
                Arguments.of("reactive", ThreadModel.REACTIVE),
                Arguments.of("REACTIVE", ThreadModel.REACTIVE));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource
    void parse(String value, ThreadModel want) {
        assertEquals(want, ThreadModel.parse(value));
    }

    @ParameterizedTest
    @ValueSource(strings = {"loom", "true", "virtual-threads", "webflux"})
    void parseRejects(String value) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ThreadModel.parse(value));
        assertEquals("THREAD_MODEL must be \"platform\", \"virtual\" or \"reactive\", got \"" + value + "\"", e.getMessage());
    }

    @Test
    void defaultTargetNames() {
        assertEquals("java-platform", ThreadModel.PLATFORM.defaultTargetName());
        assertEquals("java-virtual", ThreadModel.VIRTUAL.defaultTargetName());
        assertEquals("java-reactive", ThreadModel.REACTIVE.defaultTargetName());
    }

    @Test
    void reactiveRunsWebFluxWithoutVirtualThreads() {
        assertEquals(WebApplicationType.REACTIVE, ThreadModel.REACTIVE.webApplicationType());
        assertEquals(WebApplicationType.SERVLET, ThreadModel.VIRTUAL.webApplicationType());
        assertEquals(Map.of("spring.threads.virtual.enabled", "false", "spring.main.web-application-type", "reactive"),
                ThreadModel.REACTIVE.springProperties());
    }

    static Stream<Arguments> fromProperties() {
        return Stream.of(
                Arguments.of(Map.of(), ThreadModel.PLATFORM),
                Arguments.of(Map.of("spring.threads.virtual.enabled", "true"), ThreadModel.VIRTUAL),
                Arguments.of(Map.of("spring.main.web-application-type", "reactive"), ThreadModel.REACTIVE),
                Arguments.of(Map.of("spring.main.web-application-type", "REACTIVE"), ThreadModel.REACTIVE),
                Arguments.of(Map.of("spring.main.web-application-type", "servlet"), ThreadModel.PLATFORM));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource
    void fromProperties(Map<String, String> properties, ThreadModel want) {
        MockEnvironment env = new MockEnvironment();
        properties.forEach(env::setProperty);
        assertEquals(want, ThreadModel.from(env));
    }

    @ParameterizedTest
    @EnumSource(ThreadModel.class)
    void fromReadsWhatSpringPropertiesSet(ThreadModel model) {
        MockEnvironment env = new MockEnvironment();
        model.springProperties().forEach((key, value) -> env.setProperty(key, String.valueOf(value)));
        assertEquals(model, ThreadModel.from(env));
    }
}

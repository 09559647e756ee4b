package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.core.NestedExceptionUtils;

/** DatabaseStartTest checks that DB_* settings no driver could use stop the target at start, as a bad DOWNSTREAM_URL does. */
class DatabaseStartTest {

    @ParameterizedTest(name = "DB_KIND={0} DB_POOL={1}")
    @CsvSource(delimiter = '|', value = {
            "oracle   | 10 | DB_KIND must be postgres or mysql, got \"oracle\"",
            "postgres | 0  | DB_POOL must be an integer from 1 to 1000, got \"0\""})
    void refusedAtStart(String kind, String pool, String message) {
        SpringApplicationBuilder app = new SpringApplicationBuilder(ThreadbenchApplication.class);
        // Arguments rank above application.properties (server.port=${PORT:8080}) and the machine's environment.
        Exception e = assertThrows(Exception.class,
                () -> app.run("--server.port=0", "--DB_KIND=" + kind, "--DB_POOL=" + pool).close());
        Throwable cause = NestedExceptionUtils.getMostSpecificCause(e);
        assertEquals(IllegalArgumentException.class, cause.getClass(), e.toString());
        assertEquals(message, cause.getMessage());
    }
}

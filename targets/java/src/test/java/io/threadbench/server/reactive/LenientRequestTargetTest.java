package io.threadbench.server.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URI;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.threadbench.server.BadParameterException;
import io.threadbench.server.IntParam;

class LenientRequestTargetTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '\'', value = {
            "/api/heavy?duration=100 => /api/heavy?duration=100",          // left as it is
            "/api/heavy?duration=%31%30 => /api/heavy?duration=%31%30",    // escapes kept
            "/api/heavy?duration=%zz => /api/heavy?duration=%25zz",        // a '%' that starts none
            "/api/heavy?duration=5% => /api/heavy?duration=5%25",
            "/api/heavy?duration=%4 => /api/heavy?duration=%254",
            "/api/heavy?mode={x}|y => /api/heavy?mode=%7Bx%7D%7Cy",        // characters URI refuses
            "/api/heavy?duration=\"1\" => /api/heavy?duration=%221%22",
            "/api/h\u00e9avy => /api/h%E9avy"})                             // a byte above ASCII
    void escape(String target, String want) {
        assertEquals(want, LenientRequestTarget.escape(target));
        URI.create("http://127.0.0.1" + want); // what Spring does with it: no URISyntaxException now
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiterString = " => ", value = {"duration=%zz => \"%zz\"", "duration=5% => \"5%\"",
            "duration=x|y => \"x|y\""})
    void badParameterReadsAsSent(String query, String shown) {
        // The 400 quotes the parameter as the client sent it, as the servlet models' does.
        String rawQuery = URI.create("http://127.0.0.1/?" + LenientRequestTarget.escape(query)).getRawQuery();
        BadParameterException e = assertThrows(BadParameterException.class, () -> IntParam.DURATION.parse(rawQuery));
        assertEquals("duration must be an integer from 0 to 60000, got " + shown, e.getMessage());
    }
}

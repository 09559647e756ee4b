package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class NmtSummaryTest {

    private static final long KB = 1024;

    @Test
    void jdk25() throws IOException {
        NmtSummary got = NmtSummary.parse(fixture("jdk25-summary.txt")).orElseThrow();
        assertEquals(new NmtSummary(
                7747682 * KB, 485390 * KB,   // Total
                24657 * KB, 1513 * KB,       // Thread
                24576 * KB, 1432 * KB),      // Thread's stack
                got);
    }

    @Test
    void jdk17Layout() throws IOException {
        NmtSummary got = NmtSummary.parse(fixture("jdk17-summary.txt")).orElseThrow();
        assertEquals(new NmtSummary(
                5699167 * KB, 365399 * KB,
                18535 * KB, 1083 * KB,
                18448 * KB, 996 * KB),
                got);
    }

    @Test
    void otherScales() {
        String text = """
                Native Memory Tracking:

                Total: reserved=7566MB, committed=474MB

                -                    Thread (reserved=2GB, committed=1MB)
                                            (threads #24)
                                            (stack: reserved=24MB, committed=1MB, peak=1MB)
                """;
        NmtSummary got = NmtSummary.parse(text).orElseThrow();
        assertEquals(new NmtSummary(7566L << 20, 474L << 20, 2L << 30, 1L << 20, 24L << 20, 1L << 20), got);
    }

    @Test
    void noThreadCategory() {
        NmtSummary got = NmtSummary.parse("Total: reserved=10KB, committed=5KB\n").orElseThrow();
        assertEquals(new NmtSummary(10 * KB, 5 * KB, 0, 0, 0, 0), got);
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {
        "",
        "Native memory tracking is not enabled\n",   // JDK 25, tracking off
        "Native Memory Tracking is not enabled\n",   // older capitalisation
    })
    void nothingToParse(String text) {
        assertEquals(Optional.empty(), NmtSummary.parse(text));
    }

    static String fixture(String name) throws IOException {
        try (InputStream in = NmtSummaryTest.class.getResourceAsStream("/nmt/" + name)) {
            assertTrue(in != null, "fixture " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}

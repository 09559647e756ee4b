package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** DownstreamTest checks the client's outcomes against real sockets, one way of failing each. */
class DownstreamTest {

    private static FakeDownstream fake;

    @BeforeAll
    static void startFake() throws Exception {
        fake = new FakeDownstream();
    }

    @AfterAll
    static void stopFake() {
        fake.close();
    }

    /** call makes one heavy call to baseUrl and checks its outcome. */
    private static Downstream.Call call(String baseUrl, int durationMs, int timeoutMs, CallOutcome want) {
        Downstream.Call call = new Downstream(baseUrl).heavy(durationMs, timeoutMs);
        assertEquals(want, call.outcome(), call.detail());
        return call;
    }

    @Test
    void succeeds() {
        call(fake.baseUrl(), 10, 1000, CallOutcome.OK);
        call(fake.baseUrl() + "/", 10, 1000, CallOutcome.OK); // a trailing slash is fine
    }

    @Test
    void readTimeoutWhenTheAnswerIsLate() {
        long start = System.nanoTime();
        call(fake.baseUrl(), 300, 50, CallOutcome.READ_TIMEOUT);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs >= 50 && tookMs < 300, "took " + tookMs + " ms, want the timeout's 50 ms, not the answer's 300");
    }

    @Test
    void connectTimeoutWhenNothingAnswers() throws Exception {
        try (FakeDownstream.Unanswered unanswered = new FakeDownstream.Unanswered()) {
            long start = System.nanoTime();
            call(unanswered.url(), 0, 5000, CallOutcome.CONNECT_TIMEOUT);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(tookMs >= 450 && tookMs < 3000, "took " + tookMs + " ms, want about 500");
        }
    }

    @Test
    void refusedWhenNothingListens() throws Exception {
        call(FakeDownstream.closedPortUrl(), 0, 1000, CallOutcome.REFUSED);
    }

    @Test
    void otherForANon2xxAnswer() {
        assertEquals("status 500", call(fake.failingUrl(), 0, 1000, CallOutcome.OTHER).detail());
    }

    @Test
    void otherWhenTheConnectionClosesUnanswered() throws Exception {
        try (FakeDownstream.HangUp hangUp = new FakeDownstream.HangUp()) {
            call(hangUp.url(), 0, 1000, CallOutcome.OTHER);
        }
    }

    @Test
    void unconfigured() {
        assertFalse(new Downstream("").isConfigured());
        assertFalse(new Downstream("  ").isConfigured());
    }

    @Test
    void keepsConnectionsAlive() {
        Downstream downstream = new Downstream(fake.baseUrl()); // sets the JDK's keep-alive properties first
        // The JDK keeps 5 idle connections per host by default; Downstream asks for a whole fan-out's.
        assertEquals(String.valueOf(IntParam.MAX_CALLS), System.getProperty("http.maxConnections"));
        assertEquals("60", System.getProperty("http.keepAlive.time.server"));
        int before = fake.connections();
        for (int i = 0; i < 3; i++) {
            assertEquals(CallOutcome.OK, downstream.heavy(0, 1000).outcome());
        }
        assertTrue(fake.connections() - before <= 1, "3 calls in a row opened " + (fake.connections() - before) + " connections");
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1:9000", "ftp://127.0.0.1", "http://", "http://[bad"})
    void refusesAUrlItCannotCall(String url) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Downstream(url));
        assertTrue(e.getMessage().startsWith("DOWNSTREAM_URL must be an http:// or https:// base URL"), e.getMessage());
    }
}

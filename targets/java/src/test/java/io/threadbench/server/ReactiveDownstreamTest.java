package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.threadbench.server.reactive.ReactiveDownstream;

/**
 * ReactiveDownstreamTest checks the reactive model's non-blocking client
 * against real sockets, one way of failing each, as DownstreamTest checks
 * the blocking one: the same outcomes, so the same statuses and words.
 */
class ReactiveDownstreamTest {

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
        try (ReactiveDownstream client = new ReactiveDownstream(new Downstream(baseUrl))) {
            Downstream.Call call = client.heavy(durationMs, timeoutMs).block(Duration.ofSeconds(10));
            assertEquals(want, call.outcome(), call.detail());
            return call;
        }
    }

    @Test
    void succeeds() {
        call(fake.baseUrl(), 10, 1000, CallOutcome.OK);
        call(fake.baseUrl() + "/", 10, 1000, CallOutcome.OK);
    }

    @Test
    void readTimeoutWhenTheAnswerIsLate() {
        long start = System.nanoTime();
        Downstream.Call call = call(fake.baseUrl(), 300, 50, CallOutcome.READ_TIMEOUT);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs >= 50 && tookMs < 300, "took " + tookMs + " ms, want the timeout's 50 ms, not the answer's 300");
        assertEquals("downstream read timed out after 50 ms", DownstreamException.failed(call, 50).getMessage());
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

    /**
     * keepsConnectionsAlive makes calls one after another. Reactor Netty
     * gives a connection back to its pool on the event loop just after the
     * answer is delivered, so a call made at once may still find it taken
     * and open another; a client that kept none would open one per call.
     */
    @Test
    void keepsConnectionsAlive() {
        int calls = 6;
        try (ReactiveDownstream client = new ReactiveDownstream(new Downstream(fake.baseUrl()))) {
            int before = fake.connections();
            for (int i = 0; i < calls; i++) {
                assertEquals(CallOutcome.OK, client.heavy(0, 1000).block(Duration.ofSeconds(10)).outcome());
            }
            int opened = fake.connections() - before;
            assertTrue(opened <= calls / 2, calls + " calls in a row opened " + opened + " connections");
        }
    }
}

package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.util.stream.Stream;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.timeout.ReadTimeoutException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * CallOutcomeTest pins down the exceptions HttpURLConnection and Reactor
 * Netty's client throw, as DownstreamTest and ReactiveDownstreamTest meet them on sockets.
 */
class CallOutcomeTest {

    static Stream<Arguments> outcomes() {
        return Stream.of(
                Arguments.of(new SocketTimeoutException("Connect timed out"), false, CallOutcome.CONNECT_TIMEOUT),
                Arguments.of(new SocketTimeoutException("Read timed out"), true, CallOutcome.READ_TIMEOUT),
                // Connected on a kept-alive connection, found it closed, reconnected: a connect timeout still.
                Arguments.of(new SocketTimeoutException("Connect timed out"), true, CallOutcome.CONNECT_TIMEOUT),
                // Not yet connected, whatever the message.
                Arguments.of(new SocketTimeoutException(), false, CallOutcome.CONNECT_TIMEOUT),
                Arguments.of(new ConnectException("Connection refused"), false, CallOutcome.REFUSED),
                // A connect that failed for another reason.
                Arguments.of(new NoRouteToHostException("No route to host"), false, CallOutcome.OTHER),
                Arguments.of(new IOException("Unexpected end of file from server"), true, CallOutcome.OTHER),
                // Found among the causes.
                Arguments.of(new IOException("wrapped", new SocketTimeoutException("Read timed out")), true,
                        CallOutcome.READ_TIMEOUT),
                // Reactor Netty's, wrapped by WebClient as it does; its timeouts say which they are.
                Arguments.of(new RuntimeException("WebClientRequestException",
                        new ConnectTimeoutException("connection timed out after 500 ms: /127.0.0.1:1")), true,
                        CallOutcome.CONNECT_TIMEOUT),
                Arguments.of(new RuntimeException("WebClientRequestException", ReadTimeoutException.INSTANCE), true,
                        CallOutcome.READ_TIMEOUT),
                Arguments.of(new ConnectException("finishConnect(..) failed: Connection refused: /127.0.0.1:1"), true,
                        CallOutcome.REFUSED));
    }

    @ParameterizedTest(name = "{0}, connected {1} -> {2}")
    @MethodSource("outcomes")
    void classify(Throwable failure, boolean connected, CallOutcome want) {
        assertEquals(want, CallOutcome.classify(failure, connected));
    }
}

package io.threadbench.server;

import java.net.ConnectException;
import java.net.SocketTimeoutException;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.timeout.ReadTimeoutException;

/** CallOutcome is what became of one downstream call, as the contract counts it. */
public enum CallOutcome {
    /** OK is a 2xx answer, read through. */
    OK,
    /** READ_TIMEOUT is a call that connected and then got no answer within its timeout. */
    READ_TIMEOUT,
    /** CONNECT_TIMEOUT is a call that got no connection within the connect timeout. */
    CONNECT_TIMEOUT,
    /** REFUSED is ECONNREFUSED: nothing listens there. */
    REFUSED,
    /** OTHER is any other failure, a non-2xx answer included. */
    OTHER;

    /**
     * classify sorts a failed call's exception, looking through its causes.
     * A socket timeout before the call {@code connected} is a connect
     * timeout; after, a read timeout, unless the JDK says "Connect timed out"
     * (it reconnects once when a kept-alive connection turns out closed).
     * Reactor Netty's client (the reactive model's) raises timeouts of Netty's
     * own types instead, and says whether it had connected by which one.
     * ECONNREFUSED is a ConnectException saying "Connection refused" (Netty's
     * says it too).
     */
    public static CallOutcome classify(Throwable failure, boolean connected) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ConnectTimeoutException) { // a ConnectException: before the refused check
                return CONNECT_TIMEOUT;
            }
            if (t instanceof ReadTimeoutException) {
                return READ_TIMEOUT;
            }
            if (t instanceof SocketTimeoutException) {
                boolean connecting = !connected || String.valueOf(t.getMessage()).contains("Connect timed out");
                return connecting ? CONNECT_TIMEOUT : READ_TIMEOUT;
            }
            if (t instanceof ConnectException && String.valueOf(t.getMessage()).contains("Connection refused")) {
                return REFUSED;
            }
        }
        return OTHER;
    }
}

package io.threadbench.server;

import java.net.ConnectException;
import java.net.SocketTimeoutException;

import org.apache.hc.client5.http.ConnectTimeoutException;

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
     * Apache's ConnectTimeoutException comes first: a connect that timed out
     * is no read timeout, though both are InterruptedIOExceptions. Java throws
     * ConnectException for ECONNREFUSED, which Apache wraps in
     * HttpHostConnectException ("... failed: Connection refused").
     */
    public static CallOutcome classify(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ConnectTimeoutException) {
                return CONNECT_TIMEOUT;
            }
            if (t instanceof SocketTimeoutException) {
                return READ_TIMEOUT;
            }
            if (t instanceof ConnectException && String.valueOf(t.getMessage()).contains("Connection refused")) {
                return REFUSED;
            }
        }
        return OTHER;
    }
}

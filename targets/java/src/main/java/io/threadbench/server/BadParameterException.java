package io.threadbench.server;

/** BadParameterException is a query parameter outside the contract; it becomes a 400. */
public class BadParameterException extends RuntimeException {

    /** BadParameterException carries the message that the 400 body shows as is. */
    public BadParameterException(String message) {
        super(message);
    }
}

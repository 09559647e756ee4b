package io.threadbench.server;

import java.time.Duration;

/**
 * DatabaseException is a request {@code /api/db} could not serve: a 503
 * whose message is the error body's, word for word the Go target's except
 * for a driver's own words.
 */
public class DatabaseException extends RuntimeException {

    /** DatabaseException carries the message the 503 body shows as is. */
    public DatabaseException(String message) {
        super(message);
    }

    /** notConfigured is the 503 of a target started without DB_KIND. */
    public static DatabaseException notConfigured() {
        return new DatabaseException("no database configured (DB_KIND)");
    }

    /** noConnection is a request that got no connection of the pool of {@code pool} within {@code timeout}. */
    public static DatabaseException noConnection(Duration timeout, int pool) {
        return new DatabaseException("database: no connection in " + seconds(timeout) + " (pool of " + pool + ")");
    }

    /** failed is any other failure, in the driver's words. */
    public static DatabaseException failed(String detail) {
        return new DatabaseException("database: " + detail);
    }

    /** seconds writes a timeout as Go's time.Duration does for whole seconds and milliseconds: "30s", "250ms". */
    private static String seconds(Duration timeout) {
        long ms = timeout.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}

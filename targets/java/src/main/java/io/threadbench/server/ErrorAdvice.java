package io.threadbench.server;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/**
 * ErrorAdvice writes every error the contract can meet as {@link ErrorBody},
 * instead of Spring's default error page or body. It does not log: bad
 * requests under load must not flood the log the benchmark reads.
 */
@RestControllerAdvice
public class ErrorAdvice {

    /** badParameter is the contract's 400. */
    @ExceptionHandler(BadParameterException.class)
    public ResponseEntity<ErrorBody> badParameter(BadParameterException e) {
        return body(HttpStatus.BAD_REQUEST, e.getMessage());
    }

    /** nativeUnavailable is a 501: this JVM cannot make the FFM downcall. */
    @ExceptionHandler(NativeSleep.UnavailableException.class)
    public ResponseEntity<ErrorBody> nativeUnavailable(NativeSleep.UnavailableException e) {
        return body(HttpStatus.NOT_IMPLEMENTED, e.getMessage());
    }

    /** downstreamFailed is a 502, 503 or 504 from the endpoints that call the downstream. */
    @ExceptionHandler(DownstreamException.class)
    public ResponseEntity<ErrorBody> downstreamFailed(DownstreamException e) {
        return body(e.status(), e.getMessage());
    }

    /** databaseFailed is db's 503: no database configured, no connection in time, or a failed query. */
    @ExceptionHandler(DatabaseException.class)
    public ResponseEntity<ErrorBody> databaseFailed(DatabaseException e) {
        return body(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
    }

    /** notFound answers paths outside the contract. */
    @ExceptionHandler(NoResourceFoundException.class)
    public ResponseEntity<ErrorBody> notFound(NoResourceFoundException e) {
        return body(HttpStatus.NOT_FOUND, "no endpoint at " + ErrorBody.quote("/" + e.getResourcePath()));
    }

    /** methodNotAllowed answers anything but GET on the contract's paths. */
    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    public ResponseEntity<ErrorBody> methodNotAllowed(HttpRequestMethodNotSupportedException e) {
        return ResponseEntity.status(HttpStatus.METHOD_NOT_ALLOWED)
                .header(HttpHeaders.ALLOW, "GET, HEAD") // every route is GET, which serves HEAD too
                .body(new ErrorBody(HttpStatus.METHOD_NOT_ALLOWED.value(),
                        "method " + e.getMethod() + " not allowed, use GET"));
    }

    private static ResponseEntity<ErrorBody> body(HttpStatus status, String message) {
        return ResponseEntity.status(status).body(new ErrorBody(status.value(), message));
    }
}

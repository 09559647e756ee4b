package io.threadbench.server;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.server.MethodNotAllowedException;
import org.springframework.web.server.ServerWebExchange;

/**
 * ErrorAdvice writes every error the contract can meet as {@link ErrorBody},
 * instead of Spring's default error page or body, in every thread model:
 * Spring MVC and WebFlux both apply it, each raising its own exceptions for an
 * unknown path and a method other than GET. It does not log: bad requests
 * under load must not flood the log the benchmark reads.
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

    /** notFound answers paths outside the contract (Spring MVC). */
    @ExceptionHandler(org.springframework.web.servlet.resource.NoResourceFoundException.class)
    public ResponseEntity<ErrorBody> notFound(org.springframework.web.servlet.resource.NoResourceFoundException e) {
        return notFound("/" + e.getResourcePath());
    }

    /** notFound answers paths outside the contract (WebFlux, whose exception does not say the path). */
    @ExceptionHandler(org.springframework.web.reactive.resource.NoResourceFoundException.class)
    public ResponseEntity<ErrorBody> notFound(ServerWebExchange exchange) {
        return notFound(exchange.getRequest().getPath().pathWithinApplication().value());
    }

    /** methodNotAllowed answers anything but GET on the contract's paths (Spring MVC). */
    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    public ResponseEntity<ErrorBody> methodNotAllowed(HttpRequestMethodNotSupportedException e) {
        return methodNotAllowed(e.getMethod());
    }

    /** methodNotAllowed answers anything but GET on the contract's paths (WebFlux). */
    @ExceptionHandler(MethodNotAllowedException.class)
    public ResponseEntity<ErrorBody> methodNotAllowed(MethodNotAllowedException e) {
        return methodNotAllowed(e.getHttpMethod());
    }

    private static ResponseEntity<ErrorBody> notFound(String path) {
        return body(HttpStatus.NOT_FOUND, "no endpoint at " + ErrorBody.quote(path));
    }

    private static ResponseEntity<ErrorBody> methodNotAllowed(String method) {
        return ResponseEntity.status(HttpStatus.METHOD_NOT_ALLOWED)
                .header(HttpHeaders.ALLOW, "GET, HEAD") // every route is GET, which serves HEAD too
                .body(new ErrorBody(HttpStatus.METHOD_NOT_ALLOWED.value(), "method " + method + " not allowed, use GET"));
    }

    private static ResponseEntity<ErrorBody> body(HttpStatus status, String message) {
        return ResponseEntity.status(status).body(new ErrorBody(status.value(), message));
    }
}

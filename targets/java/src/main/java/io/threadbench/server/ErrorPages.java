package io.threadbench.server;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * ErrorPages replaces Boot's error page for whatever ErrorAdvice does not
 * see (errors raised by Tomcat, or outside any handler), so that every error
 * body has the contract's shape. It shows the status's reason, never an
 * exception's message. ErrorPageController, one per Spring Boot line (its
 * ErrorController interface moved in 4.0: src/boot3, src/boot4), makes it
 * Boot's error controller. The reactive model's counterpart is
 * {@code reactive.ReactiveErrorHandler}.
 */
public abstract class ErrorPages {

    /** error renders the servlet container's error dispatch as an ErrorBody. */
    @RequestMapping("${server.error.path:/error}")
    public ResponseEntity<ErrorBody> error(HttpServletRequest request) {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        HttpStatus status = code instanceof Integer c && HttpStatus.resolve(c) != null
                ? HttpStatus.valueOf(c)
                : HttpStatus.INTERNAL_SERVER_ERROR;
        return ResponseEntity.status(status).body(new ErrorBody(status.value(), status.getReasonPhrase()));
    }
}

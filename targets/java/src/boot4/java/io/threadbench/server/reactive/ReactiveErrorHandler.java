package io.threadbench.server.reactive;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.webflux.error.ErrorWebExceptionHandler;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;

import io.threadbench.server.ErrorBody;

/**
 * ReactiveErrorHandler replaces Boot's WebFlux error body for whatever
 * ErrorAdvice does not see (an error raised outside a handler, or one no
 * advice method takes, such as a 406), so that every error body has the
 * contract's shape: the servlet models' ErrorPageController. It shows the
 * status's reason, never an exception's message, keeps the headers a status
 * exception carries (Allow on a 405), and logs what becomes a 500, which is
 * a bug rather than a bad request.
 */
final class ReactiveErrorHandler implements ErrorWebExceptionHandler, Ordered {

    private static final Logger LOG = LoggerFactory.getLogger(ReactiveErrorHandler.class);

    private final JsonMapper json;

    /** ReactiveErrorHandler writes its bodies with {@code json}. */
    ReactiveErrorHandler(JsonMapper json) {
        this.json = json;
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable failure) {
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.error(failure); // too late for a body: Reactor Netty closes the connection
        }
        HttpStatusCode status = HttpStatus.INTERNAL_SERVER_ERROR;
        if (failure instanceof ResponseStatusException e) {
            status = e.getStatusCode();
            response.getHeaders().addAll(e.getHeaders());
        }
        if (status.is5xxServerError()) {
            LOG.error("{} {} failed", exchange.getRequest().getMethod(), exchange.getRequest().getPath(), failure);
        }
        HttpStatus known = HttpStatus.resolve(status.value());
        ErrorBody body = new ErrorBody(status.value(), known != null ? known.getReasonPhrase() : "Error");
        response.setStatusCode(status);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(json.writeValueAsBytes(body))));
    }

    /** getOrder runs it where Boot's own would run, before Spring's bodiless ResponseStatusException handler. */
    @Override
    public int getOrder() {
        return -1;
    }
}

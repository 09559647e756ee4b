package io.threadbench.management;

import java.util.Collection;
import java.util.List;

import reactor.core.publisher.Mono;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.actuate.endpoint.web.WebOperationRequestPredicate;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;

/**
 * EventLoopEndpoint is an actuator endpoint whose operations say they do not
 * block, so that WebFlux's endpoint handler mapping invokes them on the event
 * loop that took the request instead of on Reactor's boundedElastic
 * scheduler (see ReactiveMetricsServerConfig for why). The mapping expects a
 * Publisher from an operation that does not block: a blocking one's result is
 * deferred into a Mono, which it subscribes to on that event loop.
 */
record EventLoopEndpoint(ExposableWebEndpoint endpoint) implements ExposableWebEndpoint {

    /** all wraps every one of {@code endpoints}. */
    static List<ExposableWebEndpoint> all(Collection<ExposableWebEndpoint> endpoints) {
        return endpoints.stream().<ExposableWebEndpoint>map(EventLoopEndpoint::new).toList();
    }

    @Override
    public EndpointId getEndpointId() {
        return endpoint.getEndpointId();
    }

    @Override
    public Access getDefaultAccess() {
        return endpoint.getDefaultAccess();
    }

    @Override
    public Collection<WebOperation> getOperations() {
        return endpoint.getOperations().stream().<WebOperation>map(NonBlocking::new).toList();
    }

    @Override
    public String getRootPath() {
        return endpoint.getRootPath();
    }

    @Override
    public List<String> getAdditionalPaths(WebServerNamespace namespace) {
        return endpoint.getAdditionalPaths(namespace);
    }

    /** NonBlocking is an operation invoked on the thread that subscribes to its result. */
    private record NonBlocking(WebOperation operation) implements WebOperation {

        @Override
        public String getId() {
            return operation.getId();
        }

        @Override
        public boolean isBlocking() {
            return false;
        }

        @Override
        public WebOperationRequestPredicate getRequestPredicate() {
            return operation.getRequestPredicate();
        }

        @Override
        public OperationType getType() {
            return operation.getType();
        }

        @Override
        public Object invoke(InvocationContext context) {
            return operation.isBlocking() ? Mono.fromCallable(() -> operation.invoke(context)) : operation.invoke(context);
        }
    }
}

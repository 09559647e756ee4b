package io.threadbench.server.reactive;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.boot.webflux.error.ErrorWebExceptionHandler;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.threadbench.server.Downstream;
import io.threadbench.server.InflightRequests;

/**
 * ReactiveConfig wires the reactive model's own beans besides its
 * controllers: the in-flight counter's WebFilter, the error bodies, the
 * non-blocking downstream client and the lenient request target. The
 * server is Reactor Netty: Tomcat's reactive server is excluded
 * (ThreadbenchApplication), and Boot picks Reactor Netty's without it too.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = Type.REACTIVE)
public class ReactiveConfig {

    /** reactiveInflightRequests counts requests in flight in the gauges TargetConfig binds. */
    @Bean
    public ReactiveInflightRequests reactiveInflightRequests(InflightRequests inflight) {
        return new ReactiveInflightRequests(inflight);
    }

    /** errorWebExceptionHandler writes the contract's error body; Boot's own backs off. */
    @Bean
    public ErrorWebExceptionHandler errorWebExceptionHandler(JsonMapper json) {
        return new ReactiveErrorHandler(json);
    }

    /** reactiveDownstream makes the non-blocking downstream calls; closed with the context. */
    @Bean
    public ReactiveDownstream reactiveDownstream(Downstream downstream) {
        return new ReactiveDownstream(downstream);
    }

    /** lenientRequestTarget lets a malformed query reach the handlers, which answer its 400. */
    @Bean
    public NettyServerCustomizer lenientRequestTarget() {
        return new LenientRequestTarget();
    }
}

package io.threadbench.management;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.http.client.ReactorResourceFactory;

import reactor.netty.resources.LoopResources;

/**
 * ReactiveMetricsServerConfig keeps the reactive model's metrics server (the
 * actuator on {@code METRICS_PORT}, Spring's management server on Reactor
 * Netty) clear of the load under test, as MetricsServerConfig does for the
 * servlet models. Left to Boot, it shares both of the main server's thread
 * pools: Boot gives the management server a bare Reactor Netty factory, which
 * runs on Reactor Netty's global event loops, the main server's (a thread
 * dump of the jar shows reactor-http-epoll-N and no others); and the
 * actuator runs every endpoint that does not return a Publisher, the
 * Prometheus scrape among them, on Reactor's global boundedElastic
 * scheduler, where the reactive endpoints' blocking work queues (20 threads
 * on 2 CPUs: a fan-out holds one for all its calls). Here the metrics server
 * gets event loops of its own, on which the endpoints run too: a scrape is
 * CPU work of a few milliseconds. {@code /actuator/health} still waits for
 * boundedElastic, where Boot runs each blocking health indicator itself; the
 * orchestrator's readiness check is {@code /health}, on an event loop.
 *
 * <p>It lives outside {@code io.threadbench.server}, which the application
 * scans: scanned, it would customise the main server as well.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = Type.REACTIVE)
public class ReactiveMetricsServerConfig {

    /** THREAD_PREFIX names the metrics server's event-loop threads: metrics-http-epoll-N (or -nio-N). */
    static final String THREAD_PREFIX = "metrics-http";

    /** metricsServerEventLoops runs the metrics server on MetricsServerThreads.THREADS event loops of its own. */
    @Bean
    public OwnEventLoops metricsServerEventLoops() {
        return new OwnEventLoops();
    }

    /**
     * metricsEndpointsOnEventLoops is the actuator's endpoints as the metrics
     * server's handler mapping sees them: invoked on the event loop that took
     * the request rather than on boundedElastic. Primary over the main
     * context's discoverer, which it wraps, in this child context only.
     */
    @Bean
    @Primary
    public WebEndpointsSupplier metricsEndpointsOnEventLoops(WebEndpointDiscoverer discoverer) {
        return () -> EventLoopEndpoint.all(discoverer.getEndpoints());
    }

    /**
     * OwnEventLoops gives the metrics server's factory a resource factory of
     * its own, whose event loops it closes with the child context (after the
     * server has stopped).
     */
    static final class OwnEventLoops implements WebServerFactoryCustomizer<NettyReactiveWebServerFactory>, DisposableBean {

        private final ReactorResourceFactory resources = new ReactorResourceFactory();

        OwnEventLoops() {
            resources.setUseGlobalResources(false);
            resources.setLoopResourcesSupplier(() -> LoopResources.create(THREAD_PREFIX, MetricsServerThreads.THREADS, true));
        }

        @Override
        public void customize(NettyReactiveWebServerFactory factory) {
            factory.setResourceFactory(resources);
        }

        @Override
        public void destroy() {
            resources.destroy(); // not a bean itself, so this stops its loops
        }
    }
}

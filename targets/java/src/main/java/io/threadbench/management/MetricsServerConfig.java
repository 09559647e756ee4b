package io.threadbench.management;

import org.apache.coyote.AbstractProtocol;
import org.apache.coyote.ProtocolHandler;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * MetricsServerConfig runs the metrics server (the actuator on
 * {@code METRICS_PORT}, Spring's management server) on a small pool of
 * platform threads in both servlet models (the reactive model's is
 * {@link ReactiveMetricsServerConfig}). Spring gives the management server
 * the main server's executor, virtual threads in the virtual model, and a
 * scrape served by a virtual thread waits for a carrier like any request:
 * with one carrier pinned (seed 003's synchronized sleep on JDK 21) every
 * scrape times out, and the pinned events it would have reported are lost.
 * The orchestrator reads the metrics, so they must not queue behind the load
 * under test; a platform-thread pool of its own is what a production JVM's
 * monitoring port has too.
 *
 * <p>It lives outside {@code io.threadbench.server}, which the application
 * scans: scanned, it would customise the main server as well.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = Type.SERVLET)
public class MetricsServerConfig {

    /** THREADS bounds the metrics server's threads, in every model: one scraper, with room for a health probe. */
    static final int THREADS = 4;

    /**
     * platformThreads runs last, after Spring's own customizers (the virtual
     * threads one and the one that applies server.tomcat.threads.max), so the
     * executor and pool size it sets are the ones the connector starts with.
     * A null executor makes Tomcat create its own pool of platform threads.
     */
    @Bean
    public WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory> metricsServerPlatformThreads() {
        return new PlatformThreads();
    }

    /** PlatformThreads is the customizer, a class so it can say its order. */
    static final class PlatformThreads implements WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory>, Ordered {
        @Override
        public void customize(ConfigurableTomcatWebServerFactory factory) {
            // A connector customizer: Spring applies server.tomcat.threads.max
            // with one, and connector customizers run after the protocol
            // handler customizers, in the order they were added.
            factory.addConnectorCustomizers(connector -> {
                ProtocolHandler handler = connector.getProtocolHandler();
                handler.setExecutor(null);
                if (handler instanceof AbstractProtocol<?> protocol) {
                    protocol.setMaxThreads(THREADS);
                    protocol.setMinSpareThreads(1);
                }
            });
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }
}

package io.threadbench.management;

import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.web.embedded.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * MetricsServerConfig runs the metrics server on platform threads of its own
 * in both servlet models ({@link MetricsServerThreads}), on Spring Boot 3.x.
 *
 * <p>It lives outside {@code io.threadbench.server}, which the application
 * scans: scanned, it would customise the main server as well.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = Type.SERVLET)
public class MetricsServerConfig {

    /**
     * metricsServerPlatformThreads runs last, after Spring's own customizers
     * (the virtual threads one and the one that applies
     * server.tomcat.threads.max), so the executor and pool size it sets are
     * the ones the connector starts with.
     */
    @Bean
    public WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory> metricsServerPlatformThreads() {
        return new PlatformThreads();
    }

    /** PlatformThreads is the customizer, a class so it can say its order. */
    static final class PlatformThreads implements WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory>, Ordered {
        @Override
        public void customize(ConfigurableTomcatWebServerFactory factory) {
            factory.addConnectorCustomizers(MetricsServerThreads::onPlatformThreads);
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }
}

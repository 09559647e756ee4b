package io.threadbench.management;

import org.apache.catalina.connector.Connector;
import org.apache.coyote.AbstractProtocol;
import org.apache.coyote.ProtocolHandler;

/**
 * MetricsServerThreads runs the metrics server (the actuator on
 * {@code METRICS_PORT}, Spring's management server) on a small pool of
 * platform threads in both servlet models (the reactive model's is
 * {@code ReactiveMetricsServerConfig}). Spring gives the management server
 * the main server's executor, virtual threads in the virtual model, and a
 * scrape served by a virtual thread waits for a carrier like any request:
 * with one carrier pinned (seed 003's synchronized sleep on JDK 21) every
 * scrape times out, and the pinned events it would have reported are lost.
 * The orchestrator reads the metrics, so they must not queue behind the load
 * under test; a platform-thread pool of its own is what a production JVM's
 * monitoring port has too. MetricsServerConfig, one per Spring Boot line
 * (Tomcat's factory moved in 4.0: src/boot3, src/boot4), applies it.
 */
final class MetricsServerThreads {

    /** THREADS bounds the metrics server's threads, in every model: one scraper, with room for a health probe. */
    static final int THREADS = 4;

    private MetricsServerThreads() {
    }

    /**
     * onPlatformThreads gives the connector a pool of its own: a null
     * executor makes Tomcat create its own pool of platform threads. It is a
     * connector customizer's body: Spring applies server.tomcat.threads.max
     * with one, and connector customizers run after the protocol handler
     * customizers, in the order they were added.
     */
    static void onPlatformThreads(Connector connector) {
        ProtocolHandler handler = connector.getProtocolHandler();
        handler.setExecutor(null);
        if (handler instanceof AbstractProtocol<?> protocol) {
            protocol.setMaxThreads(THREADS);
            protocol.setMinSpareThreads(1);
        }
    }
}

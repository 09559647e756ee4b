package io.threadbench.management;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import org.apache.tomcat.util.threads.ThreadPoolExecutor;
import org.apache.tomcat.util.threads.VirtualThreadExecutor;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

import io.threadbench.server.ThreadbenchApplication;

/**
 * MetricsServerTest starts the virtual model with a metrics port of its own
 * (what METRICS_PORT sets): the endpoints run on virtual threads and the
 * metrics server on a small pool of platform threads, so that a scrape never
 * waits for a carrier.
 */
@SpringBootTest(classes = {ThreadbenchApplication.class, MetricsServerTest.Servers.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.threads.virtual.enabled=true", "management.server.port=0", "management.server.address=127.0.0.1"})
class MetricsServerTest {

    @Autowired
    Servers servers;

    @LocalManagementPort
    int metricsPort;

    @Test
    void endpointsOnVirtualThreadsMetricsOnPlatformThreads() {
        assertThat(servers.executor("server")).isInstanceOf(VirtualThreadExecutor.class);
        Executor metrics = servers.executor("management");
        assertThat(metrics).isInstanceOf(ThreadPoolExecutor.class);
        assertThat(((ThreadPoolExecutor) metrics).getMaximumPoolSize()).isEqualTo(MetricsServerThreads.THREADS);
    }

    @Test
    void metricsServedOnTheirOwnPort() throws Exception {
        HttpResponse<String> resp = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/actuator/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(resp.statusCode()).isEqualTo(200);
        assertThat(resp.body()).contains("threadbench_carrier_threads");
    }

    /** Servers records each web server as it starts, by its context's namespace ("management" for the child). */
    @TestConfiguration(proxyBeanMethods = false)
    static class Servers {
        private final Map<String, TomcatWebServer> byNamespace = new ConcurrentHashMap<>();

        @Bean
        Servers servers() {
            return this;
        }

        @EventListener
        void started(WebServerInitializedEvent event) {
            String ns = event.getApplicationContext().getServerNamespace();
            byNamespace.put(ns == null ? "server" : ns, (TomcatWebServer) event.getWebServer());
        }

        Executor executor(String namespace) {
            assertThat(byNamespace).containsKey(namespace);
            return byNamespace.get(namespace).getTomcat().getConnector().getProtocolHandler().getExecutor();
        }
    }
}

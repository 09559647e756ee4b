package io.threadbench.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** ThreadbenchApplicationTest checks how the contract's environment becomes Spring's properties. */
class ThreadbenchApplicationTest {

    @Test
    void metricsOnTheEndpointsPortWithoutMetricsPort() {
        assertThat(ThreadbenchApplication.defaults(ThreadModel.VIRTUAL, Map.of("BIND_ADDR", "127.0.0.1")))
                .containsExactly(Map.entry("spring.threads.virtual.enabled", "true"));
        assertThat(ThreadbenchApplication.defaults(ThreadModel.PLATFORM, Map.of("METRICS_PORT", "")))
                .containsExactly(Map.entry("spring.threads.virtual.enabled", "false"));
    }

    @Test
    void reactiveAsksForWebFlux() {
        assertThat(ThreadbenchApplication.defaults(ThreadModel.REACTIVE, Map.of("METRICS_PORT", "41235")))
                .containsEntry("spring.main.web-application-type", "reactive")
                .containsEntry("spring.threads.virtual.enabled", "false")
                .containsEntry("management.server.port", "41235");
    }

    @Test
    void metricsPortBindsWhereTheEndpointsDo() {
        assertThat(ThreadbenchApplication.defaults(ThreadModel.PLATFORM, Map.of("METRICS_PORT", "41235", "BIND_ADDR", "198.18.0.2")))
                .containsEntry("management.server.port", "41235")
                .containsEntry("management.server.address", "198.18.0.2");
        assertThat(ThreadbenchApplication.defaults(ThreadModel.PLATFORM, Map.of("METRICS_PORT", "41235")))
                .containsEntry("management.server.address", "127.0.0.1");
    }
}

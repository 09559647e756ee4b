package io.threadbench.server;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.java21.instrument.binder.jdk.VirtualThreadMetrics;

/**
 * TargetConfig wires the target's own beans: its description, the native sleep,
 * the downstream client, the database pool, the extra metrics and the
 * in-flight request counter.
 */
@Configuration(proxyBeanMethods = false)
public class TargetConfig {

    private static final Logger log = LoggerFactory.getLogger(TargetConfig.class);

    /** targetInfo is read once: the JVM's choices do not change while it runs. */
    @Bean
    public TargetInfo targetInfo(Environment env) {
        return TargetInfo.from(env);
    }

    /**
     * downstream calls DOWNSTREAM_URL for the fan-out endpoints; a malformed URL
     * stops the start.
     */
    @Bean
    public Downstream downstream(Environment env) {
        return new Downstream(env.getProperty("DOWNSTREAM_URL", ""));
    }

    /**
     * database is /api/db's pool when DB_KIND is set, its metrics on the
     * target's registry; bad DB_* settings stop the start. Closed with the
     * context.
     */
    @Bean
    public Database database(Environment env, MeterRegistry registry) {
        return DatabaseSettings.from(env).map(settings -> Database.open(settings, registry)).orElseGet(Database::none);
    }

    /**
     * pinnedThreads counts JFR's pinned events from the start, in both thread
     * models (see PinnedThreads for why). Closed with the context.
     */
    @Bean
    public PinnedThreads pinnedThreads(Environment env) {
        PinnedThreads pinned = new PinnedThreads(Duration.ofMillis(PinnedThreads.thresholdMs(env)));
        pinned.start();
        return pinned;
    }

    /**
     * wakeDelay times how late a thread of the requests' kind runs after a
     * sleep: the wait a woken thread has for a CPU (a carrier on virtual
     * threads). Closed with the context.
     */
    @Bean
    public WakeDelay wakeDelay(Environment env) {
        WakeDelay delay = new WakeDelay(ThreadModel.from(env));
        delay.start();
        return delay;
    }

    /** carrierThreads counts the carriers of virtual threads at each scrape. */
    @Bean
    public CarrierThreads carrierThreads() {
        return new CarrierThreads();
    }

    /** nativeSleep links nanosleep at startup so no request pays for the lookup. */
    @Bean
    public NativeSleep nativeSleep() {
        return NativeSleep.load();
    }

    /**
     * virtualThreadMetrics adds jvm.threads.virtual.* (pinned, submit.failed,
     * and on JDK 24+ scheduler gauges). Boot would add it too; declaring it
     * states the dependency and Boot backs off. Closed with the context.
     */
    @Bean
    public VirtualThreadMetrics virtualThreadMetrics() {
        return new VirtualThreadMetrics();
    }

    /** nmtMetrics adds jvm.nmt.* gauges when the JVM runs with -XX:NativeMemoryTracking. */
    @Bean
    public NmtMetrics nmtMetrics() {
        return NmtMetrics.fromDiagnosticCommand();
    }

    /**
     * inflightRequests counts requests in flight by thread kind; Boot binds
     * its gauges as a MeterBinder. The servlet models register it as a filter
     * (below), the reactive one wraps it in a WebFilter (reactive.ReactiveConfig).
     */
    @Bean
    public InflightRequests inflightRequests() {
        return new InflightRequests();
    }

    /**
     * inflightRequestsFilter runs the counter first, before the observation
     * filter and anything else, so a request counts for as long as it holds
     * its thread.
     */
    @Bean
    @ConditionalOnWebApplication(type = Type.SERVLET)
    public FilterRegistrationBean<InflightRequests> inflightRequestsFilter(InflightRequests inflight) {
        FilterRegistrationBean<InflightRequests> registration = new FilterRegistrationBean<>(inflight);
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }

    /** logStartup prints one line with what the JVM chose, so results can record it. */
    @EventListener(ApplicationReadyEvent.class)
    public void logStartup(ApplicationReadyEvent event) {
        TargetInfo info = event.getApplicationContext().getBean(TargetInfo.class);
        NativeSleep sleep = event.getApplicationContext().getBean(NativeSleep.class);
        Downstream downstream = event.getApplicationContext().getBean(Downstream.class);
        PinnedThreads pinned = event.getApplicationContext().getBean(PinnedThreads.class);
        Database database = event.getApplicationContext().getBean(Database.class);
        log.info("{} nativeSleep={} downstream={} pinnedEvents={} database={}", info.logLine(),
                sleep.isAvailable() ? "available" : "unavailable (" + sleep.unavailableReason() + ")",
                downstream.isConfigured() ? downstream.baseUrl() : "none",
                pinned.isStreaming() ? "streaming" : "unavailable",
                database.settings().map(DatabaseSettings::toString).orElse("none"));
    }
}

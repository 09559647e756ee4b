package io.threadbench.server;

import java.util.HashMap;
import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.util.ClassUtils;

/**
 * ThreadbenchApplication is the Java target of threadbench: one jar that serves
 * the endpoint contract (targets/CONTRACT.md) on Tomcat platform threads, on
 * virtual threads or with WebFlux on Reactor Netty, chosen by {@code THREAD_MODEL}.
 *
 * <p>Tomcat's reactive server is left out: the reactive model runs on Reactor
 * Netty only. With both servers on the class path, Boot 4.1 registers each
 * one's reactive management context factory under the same bean name, and a
 * reactive target with METRICS_PORT would not start. The servlet models never
 * load these configurations. They are named, not referenced: the same
 * sources build on Spring Boot 3.5 (targets/java/boot3), which has no such
 * classes and ignores an exclusion of a class it does not have.
 */
@SpringBootApplication(excludeName = {"org.springframework.boot.tomcat.autoconfigure.reactive.TomcatReactiveWebServerAutoConfiguration",
        "org.springframework.boot.tomcat.autoconfigure.actuate.web.server.TomcatReactiveManagementContextAutoConfiguration"})
public class ThreadbenchApplication {

    /** REACTIVE_CONFIG is the reactive model's configuration, built on Spring Boot 4 only (src/boot4). */
    static final String REACTIVE_CONFIG = "io.threadbench.server.reactive.ReactiveConfig";

    /** main maps THREAD_MODEL onto Spring's own switch and starts the server. */
    public static void main(String[] args) {
        ThreadModel model;
        try {
            model = ThreadModel.parse(System.getenv("THREAD_MODEL"));
            if (model == ThreadModel.REACTIVE && !ClassUtils.isPresent(REACTIVE_CONFIG, ThreadbenchApplication.class.getClassLoader())) {
                throw new IllegalArgumentException("THREAD_MODEL=reactive: this build, on Spring Boot " + SpringBootVersion.getVersion()
                        + ", has no reactive model (it is built on Spring Boot 4 only)");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("threadbench-java: " + e.getMessage());
            System.exit(2);
            return;
        }
        SpringApplication app = new SpringApplication(ThreadbenchApplication.class);
        // Default properties rank lowest, so an explicit spring.threads.virtual.enabled or
        // spring.main.web-application-type (tests, -D) still wins; THREAD_MODEL is only the
        // friendly front door. SpringApplication binds spring.main.* onto itself, so the
        // reactive model's web application type is set by the same property a test sets.
        app.setDefaultProperties(defaults(model, System.getenv()));
        app.run(args);
    }

    /**
     * defaults maps THREAD_MODEL ({@link ThreadModel#springProperties}), and
     * METRICS_PORT when it is set, onto Spring's properties. The metrics server binds where the endpoints do;
     * Spring refuses a management address without a port of its own, so
     * both are set together or not at all.
     */
    static Map<String, Object> defaults(ThreadModel model, Map<String, String> env) {
        Map<String, Object> props = new HashMap<>(model.springProperties());
        String metricsPort = env.getOrDefault("METRICS_PORT", "");
        if (!metricsPort.isEmpty()) {
            props.put("management.server.port", metricsPort);
            props.put("management.server.address", env.getOrDefault("BIND_ADDR", "127.0.0.1"));
        }
        return props;
    }
}

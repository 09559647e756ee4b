package io.threadbench.server;

import java.util.HashMap;
import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * ThreadbenchApplication is the Java target of threadbench: one jar that serves
 * the endpoint contract (targets/CONTRACT.md) on Tomcat platform threads or on
 * virtual threads, chosen by {@code THREAD_MODEL}.
 */
@SpringBootApplication
public class ThreadbenchApplication {

    /** main maps THREAD_MODEL onto Spring's own switch and starts the server. */
    public static void main(String[] args) {
        ThreadModel model;
        try {
            model = ThreadModel.parse(System.getenv("THREAD_MODEL"));
        } catch (IllegalArgumentException e) {
            System.err.println("threadbench-java: " + e.getMessage());
            System.exit(2);
            return;
        }
        SpringApplication app = new SpringApplication(ThreadbenchApplication.class);
        // Default properties rank lowest, so an explicit spring.threads.virtual.enabled
        // (tests, -D) still wins; THREAD_MODEL is only the friendly front door.
        app.setDefaultProperties(defaults(model, System.getenv()));
        app.run(args);
    }

    /**
     * defaults maps THREAD_MODEL, and METRICS_PORT when it is set, onto
     * Spring's properties. The metrics server binds where the endpoints do;
     * Spring refuses a management address without a port of its own, so
     * both are set together or not at all.
     */
    static Map<String, Object> defaults(ThreadModel model, Map<String, String> env) {
        Map<String, Object> props = new HashMap<>();
        props.put("spring.threads.virtual.enabled", String.valueOf(model.isVirtual()));
        String metricsPort = env.getOrDefault("METRICS_PORT", "");
        if (!metricsPort.isEmpty()) {
            props.put("management.server.port", metricsPort);
            props.put("management.server.address", env.getOrDefault("BIND_ADDR", "127.0.0.1"));
        }
        return props;
    }
}

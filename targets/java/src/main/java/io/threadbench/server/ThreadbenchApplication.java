package io.threadbench.server;

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
        app.setDefaultProperties(Map.of("spring.threads.virtual.enabled", String.valueOf(model.isVirtual())));
        app.run(args);
    }
}

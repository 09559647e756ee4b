package io.threadbench.server;

import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * StatusController serves {@code /health} with the contract's body (the
 * actuator's health has another shape) and {@code /info}, the JVM facts the
 * orchestrator records with each result.
 */
@RestController
public class StatusController {

    private static final Map<String, String> UP = Map.of("status", "UP");

    private final TargetInfo info;

    /** StatusController reports {@code info}. */
    public StatusController(TargetInfo info) {
        this.info = info;
    }

    /** health answers {"status":"UP"} once the server takes requests. */
    @GetMapping("/health")
    public Map<String, String> health() {
        return UP;
    }

    /** info describes the target and the JVM's choices. */
    @GetMapping("/info")
    public TargetInfo info() {
        return info;
    }
}

package io.threadbench.server;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import org.springframework.boot.WebApplicationType;
import org.springframework.core.env.PropertyResolver;

/**
 * ThreadModel is what runs request handlers: Tomcat's platform-thread pool,
 * one virtual thread per request, or Reactor Netty's event loops.
 */
public enum ThreadModel {
    /** PLATFORM is Tomcat's bounded pool of OS threads (server.tomcat.threads.max). */
    PLATFORM(WebApplicationType.SERVLET),
    /** VIRTUAL is one virtual thread per request (spring.threads.virtual.enabled=true). */
    VIRTUAL(WebApplicationType.SERVLET),
    /**
     * REACTIVE is Spring WebFlux on Reactor Netty: a few event-loop threads
     * serve every request, a wait holds none, and blocking work runs on
     * Reactor's boundedElastic scheduler.
     */
    REACTIVE(WebApplicationType.REACTIVE);

    /** VIRTUAL_THREADS is Spring's switch for virtual threads. */
    static final String VIRTUAL_THREADS = "spring.threads.virtual.enabled";

    /** WEB_APPLICATION_TYPE is Spring Boot's switch between the servlet stack and WebFlux. */
    static final String WEB_APPLICATION_TYPE = "spring.main.web-application-type";

    private final WebApplicationType webApplicationType;

    ThreadModel(WebApplicationType webApplicationType) {
        this.webApplicationType = webApplicationType;
    }

    /** parse reads a THREAD_MODEL value; unset or blank means platform. */
    public static ThreadModel parse(String value) {
        if (value == null || value.isBlank()) {
            return PLATFORM;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "platform" -> PLATFORM;
            case "virtual" -> VIRTUAL;
            case "reactive" -> REACTIVE;
            default -> throw new IllegalArgumentException(
                    "THREAD_MODEL must be \"platform\", \"virtual\" or \"reactive\", got \"" + value + "\"");
        };
    }

    /**
     * from returns the model Spring runs under {@code env}'s properties: the
     * ones {@link #springProperties} sets, which a test or a -D can set too.
     */
    public static ThreadModel from(PropertyResolver env) {
        if (WebApplicationType.REACTIVE.name().equalsIgnoreCase(env.getProperty(WEB_APPLICATION_TYPE, ""))) {
            return REACTIVE;
        }
        return env.getProperty(VIRTUAL_THREADS, Boolean.class, false) ? VIRTUAL : PLATFORM;
    }

    /**
     * springProperties are the Spring properties that select this model. The
     * servlet models name no application type: with both web stacks on the
     * class path Boot picks the servlet one itself.
     */
    public Map<String, Object> springProperties() {
        Map<String, Object> props = new HashMap<>();
        props.put(VIRTUAL_THREADS, String.valueOf(isVirtual()));
        if (webApplicationType != WebApplicationType.SERVLET) {
            props.put(WEB_APPLICATION_TYPE, webApplicationType.name().toLowerCase(Locale.ROOT));
        }
        return props;
    }

    /** webApplicationType is the web stack this model runs: the servlet one on Tomcat, or WebFlux. */
    public WebApplicationType webApplicationType() {
        return webApplicationType;
    }

    /** isVirtual reports whether handlers run on virtual threads. */
    public boolean isVirtual() {
        return this == VIRTUAL;
    }

    /** label is the lowercase name used in THREAD_MODEL, logs and /info. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** defaultTargetName is the TARGET_NAME used when none is set: java-platform, java-virtual or java-reactive. */
    public String defaultTargetName() {
        return "java-" + label();
    }
}

package io.threadbench.server;

import java.util.Locale;

/** ThreadModel is what runs request handlers: Tomcat's platform-thread pool or one virtual thread per request. */
public enum ThreadModel {
    /** PLATFORM is Tomcat's bounded pool of OS threads (server.tomcat.threads.max). */
    PLATFORM,
    /** VIRTUAL is one virtual thread per request (spring.threads.virtual.enabled=true). */
    VIRTUAL;

    /** parse reads a THREAD_MODEL value; unset or blank means platform. */
    public static ThreadModel parse(String value) {
        if (value == null || value.isBlank()) {
            return PLATFORM;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "platform" -> PLATFORM;
            case "virtual" -> VIRTUAL;
            default -> throw new IllegalArgumentException(
                    "THREAD_MODEL must be \"platform\" or \"virtual\", got \"" + value + "\"");
        };
    }

    /** of returns the model Spring runs when spring.threads.virtual.enabled is {@code virtual}. */
    public static ThreadModel of(boolean virtual) {
        return virtual ? VIRTUAL : PLATFORM;
    }

    /** isVirtual reports whether handlers run on virtual threads. */
    public boolean isVirtual() {
        return this == VIRTUAL;
    }

    /** label is the lowercase name used in THREAD_MODEL, logs and /info. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** defaultTargetName is the TARGET_NAME used when none is set: java-platform or java-virtual. */
    public String defaultTargetName() {
        return "java-" + label();
    }
}

package io.threadbench.server;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import org.springframework.core.env.Environment;

/**
 * TargetInfo is what this target is and what the JVM chose for it: the
 * orchestrator records it with every result, so that two runs can be compared
 * knowing their heap, GC and parallelism. Served by {@code GET /info} and
 * logged once at startup.
 */
@JsonPropertyOrder({"target", "threadModel", "jdk", "vendor", "gc", "maxHeapBytes", "availableProcessors",
        "tomcatMaxThreads", "virtualParallelism"})
public record TargetInfo(
        String target,
        String threadModel,
        String jdk,
        String vendor,
        List<String> gc,
        long maxHeapBytes,
        int availableProcessors,
        int tomcatMaxThreads,
        int virtualParallelism) {

    /** DEFAULT_TOMCAT_MAX_THREADS is Tomcat's pool size when TOMCAT_MAX_THREADS is unset. */
    public static final int DEFAULT_TOMCAT_MAX_THREADS = 200;

    /** from reads the target's configuration from Spring's environment and the JVM's own facts. */
    public static TargetInfo from(Environment env) {
        ThreadModel model = ThreadModel.of(env.getProperty("spring.threads.virtual.enabled", Boolean.class, false));
        String name = env.getProperty("TARGET_NAME", "");
        int processors = Runtime.getRuntime().availableProcessors();
        return new TargetInfo(
                name.isBlank() ? model.defaultTargetName() : name,
                model.label(),
                Runtime.version().toString(),
                System.getProperty("java.vendor", ""),
                ManagementFactory.getGarbageCollectorMXBeans().stream()
                        .map(GarbageCollectorMXBean::getName).toList(),
                Runtime.getRuntime().maxMemory(),
                processors,
                env.getProperty("server.tomcat.threads.max", Integer.class, DEFAULT_TOMCAT_MAX_THREADS),
                // The JDK's default scheduler parallelism is the processor count unless overridden.
                Integer.getInteger("jdk.virtualThreadScheduler.parallelism", processors));
    }

    /** logLine is the one-line startup summary, key=value so it greps well. */
    public String logLine() {
        return "threadbench target=" + target + " threadModel=" + threadModel + " jdk=" + jdk
                + " vendor=\"" + vendor + "\" gc=" + gc + " maxHeapBytes=" + maxHeapBytes
                + " availableProcessors=" + availableProcessors + " tomcatMaxThreads=" + tomcatMaxThreads
                + " virtualParallelism=" + virtualParallelism;
    }
}

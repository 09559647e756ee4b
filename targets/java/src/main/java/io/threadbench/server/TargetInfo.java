package io.threadbench.server;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.OperatingSystemMXBean;

import org.springframework.boot.SpringBootVersion;
import org.springframework.core.SpringVersion;
import org.springframework.core.env.Environment;

/**
 * TargetInfo is what this target is and what the JVM chose for it: the
 * orchestrator records it with every result, so that two runs can be compared
 * knowing their heap, GC and parallelism. Served by {@code GET /info} and
 * logged once at startup. The contract's fields come first (the Go target
 * has the same); {@code jdk} to {@code virtualParallelism} are this target's
 * own, kept for the readers that already use them ({@code tomcatMaxThreads}
 * is 0 in the reactive model, which has no Tomcat pool).
 */
@JsonPropertyOrder({"target", "threadModel", "runtime", "runtimeVersion", "framework", "availableProcessors", "memoryLimitBytes",
        "cpuModel", "knobs", "jdk", "vendor", "gc", "maxHeapBytes", "tomcatMaxThreads", "virtualParallelism"})
public record TargetInfo(
        String target,
        String threadModel,
        String runtime,
        String runtimeVersion,
        String framework,
        int availableProcessors,
        long memoryLimitBytes,
        String cpuModel,
        Map<String, String> knobs,
        String jdk,
        String vendor,
        List<String> gc,
        long maxHeapBytes,
        int tomcatMaxThreads,
        int virtualParallelism) {

    /** The collectors a HotSpot JVM can run, by the -XX:+Use...GC flag that picks each, in the README's names. */
    private static final List<String> COLLECTORS = List.of("Serial", "Parallel", "G1", "Z", "Shenandoah", "Epsilon");

    /** TargetInfo copies knobs and gc, so the record stays immutable. */
    public TargetInfo {
        knobs = Collections.unmodifiableMap(new TreeMap<>(knobs));
        gc = List.copyOf(gc);
    }

    /** from reads the target's configuration from Spring's environment and the JVM's own facts. */
    public static TargetInfo from(Environment env) {
        ThreadModel model = ThreadModel.from(env);
        String name = env.getProperty("TARGET_NAME", "");
        int processors = Runtime.getRuntime().availableProcessors();
        // The JDK's default scheduler parallelism is the processor count unless overridden.
        int parallelism = Integer.getInteger("jdk.virtualThreadScheduler.parallelism", processors);
        ServerThreads server = ServerThreads.of(model, env, parallelism);
        long maxHeap = Runtime.getRuntime().maxMemory();
        Map<String, String> knobs = new HashMap<>(server.knobs());
        knobs.put("gc", collector());
        knobs.put("maxHeapBytes", String.valueOf(maxHeap));
        knobs.put("pinnedThresholdMs", String.valueOf(PinnedThreads.thresholdMs(env)));
        DatabaseSettings.from(env).ifPresent(db -> {
            knobs.put("dbKind", db.kind().word());
            knobs.put("dbPool", String.valueOf(db.pool()));
        });
        return new TargetInfo(
                name.isBlank() ? model.defaultTargetName() : name,
                model.label(),
                runtimeName() + " " + Runtime.version(),
                Runtime.version().toString(),
                frameworkName(server.server()),
                processors,
                memoryLimit(totalMemory(), hostMemory()),
                hostCpuModel(),
                knobs,
                Runtime.version().toString(),
                System.getProperty("java.vendor", ""),
                ManagementFactory.getGarbageCollectorMXBeans().stream()
                        .map(GarbageCollectorMXBean::getName).toList(),
                maxHeap,
                server.tomcatMaxThreads(),
                parallelism);
    }

    /** logLine is the one-line startup summary, key=value so it greps well. */
    public String logLine() {
        return "threadbench target=" + target + " threadModel=" + threadModel + " jdk=" + jdk
                + " vendor=\"" + vendor + "\" gc=" + gc + " maxHeapBytes=" + maxHeapBytes
                + " memoryLimitBytes=" + memoryLimitBytes
                + " availableProcessors=" + availableProcessors + " " + ServerThreads.logFields(knobs)
                + " pinnedThresholdMs=" + knobs.get("pinnedThresholdMs");
    }

    /**
     * memoryLimit is the container's memory limit, or 0 when there is none.
     * The JVM's total memory is container-aware: the cgroup's limit when it is
     * below the machine's memory, else the machine's, which means no limit.
     */
    static long memoryLimit(long totalMemory, long hostMemory) {
        return hostMemory > 0 && totalMemory > 0 && totalMemory < hostMemory ? totalMemory : 0;
    }

    /** runtimeName is the runtime's own name without " Runtime Environment": "OpenJDK" for Temurin. */
    static String runtimeName() {
        String name = System.getProperty("java.runtime.name", "Java").replace(" Runtime Environment", "").strip();
        return name.isEmpty() ? "Java" : name;
    }

    /**
     * frameworkName is what serves the endpoints, by the versions on the class path:
     * "Spring Boot 4.1.1 (Spring Framework 7.0.3, Apache Tomcat/11.0.24)", or
     * "Reactor Netty 1.3.7" as the {@code server} in the reactive model.
     */
    static String frameworkName(String server) {
        return "Spring Boot " + SpringBootVersion.getVersion() + " (Spring Framework " + SpringVersion.getVersion()
                + ", " + server + ")";
    }

    /** collector names the GC in use by its -XX:+Use...GC flag, or lists the collectors' beans on another JVM. */
    static String collector() {
        try {
            HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            for (String gc : COLLECTORS) {
                if ("true".equals(hotspot.getVMOption("Use" + gc + "GC").getValue())) {
                    return gc;
                }
            }
        } catch (RuntimeException e) {
            // not HotSpot, or a flag this JVM lacks (Shenandoah): fall back to the beans' names
        }
        return String.join(", ", ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).toList());
    }

    /** totalMemory is the JVM's container-aware view of the machine's memory. */
    private static long totalMemory() {
        return ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class).getTotalMemorySize();
    }

    /** hostMemory is MemTotal of /proc/meminfo in bytes, which no cgroup changes; -1 off Linux. */
    private static long hostMemory() {
        try {
            return parseMemTotal(Files.readString(Path.of("/proc/meminfo"))).orElse(-1L);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * hostCpuModel is the host's CPU model, the first "model name" of
     * /proc/cpuinfo (a container sees its host's), or "" where there is none:
     * the orchestrator records it for a remote host, whose engine does not say.
     */
    private static String hostCpuModel() {
        try {
            return parseCpuModel(Files.readString(Path.of("/proc/cpuinfo")));
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** parseCpuModel reads the first "model name : ..." of /proc/cpuinfo's text. */
    static String parseCpuModel(String cpuinfo) {
        return cpuinfo.lines()
                .map(l -> l.split(":", 2))
                .filter(kv -> kv.length == 2 && kv[0].strip().equals("model name"))
                .map(kv -> kv[1].strip())
                .findFirst()
                .orElse("");
    }

    /** parseMemTotal reads "MemTotal: N kB" from /proc/meminfo's text. */
    static Optional<Long> parseMemTotal(String meminfo) {
        return meminfo.lines()
                .filter(l -> l.startsWith("MemTotal:"))
                .map(l -> l.substring("MemTotal:".length()).strip().split("\\s+"))
                .filter(f -> f.length == 2 && f[1].equals("kB") && f[0].chars().allMatch(Character::isDigit))
                .map(f -> Long.parseLong(f[0]) * 1024)
                .findFirst();
    }
}

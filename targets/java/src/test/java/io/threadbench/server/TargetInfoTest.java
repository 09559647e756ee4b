package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.mock.env.MockEnvironment;

import reactor.core.scheduler.Schedulers;
import reactor.netty.resources.LoopResources;

class TargetInfoTest {

    @Test
    void defaults() {
        TargetInfo info = TargetInfo.from(new MockEnvironment());
        assertEquals("java-platform", info.target());
        assertEquals("platform", info.threadModel());
        assertEquals(200, info.tomcatMaxThreads());
        assertEquals(Runtime.version().toString(), info.jdk());
        assertEquals(Runtime.getRuntime().availableProcessors(), info.availableProcessors());
        assertFalse(info.gc().isEmpty(), "a JVM always has a collector");
    }

    @Test
    void virtualNamesItselfByModel() {
        MockEnvironment env = new MockEnvironment().withProperty("spring.threads.virtual.enabled", "true");
        TargetInfo info = TargetInfo.from(env);
        assertEquals("java-virtual", info.target());
        assertEquals("virtual", info.threadModel());
    }

    @Test
    void configuredNameAndPool() {
        MockEnvironment env = new MockEnvironment()
                .withProperty("TARGET_NAME", "java-virtual-g1")
                .withProperty("spring.threads.virtual.enabled", "true")
                .withProperty("server.tomcat.threads.max", "50");
        TargetInfo info = TargetInfo.from(env);
        assertEquals("java-virtual-g1", info.target());
        assertEquals(50, info.tomcatMaxThreads());
    }

    @Test
    void reactiveHasReactorNettysKnobs() {
        MockEnvironment env = new MockEnvironment().withProperty("spring.main.web-application-type", "reactive")
                .withProperty("server.tomcat.threads.max", "50"); // Tomcat's, which the reactive model has not
        TargetInfo info = TargetInfo.from(env);
        assertEquals("java-reactive", info.target());
        assertEquals("reactive", info.threadModel());
        assertEquals(Set.of("eventLoopThreads", "boundedElasticThreads", "gc", "maxHeapBytes", "pinnedThresholdMs"),
                info.knobs().keySet());
        assertEquals(String.valueOf(LoopResources.DEFAULT_IO_WORKER_COUNT), info.knobs().get("eventLoopThreads"));
        assertEquals(String.valueOf(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE), info.knobs().get("boundedElasticThreads"));
        assertEquals(0, info.tomcatMaxThreads(), "no Tomcat pool");
        assertTrue(info.framework().matches("Spring Boot .* \\(Spring Framework .*, Reactor Netty \\d+\\.\\d+\\.\\d+.*\\)"),
                info.framework());
        assertTrue(info.logLine().contains(" threadModel=reactive "), info.logLine());
        assertTrue(info.logLine().contains(" eventLoopThreads=" + LoopResources.DEFAULT_IO_WORKER_COUNT + " "), info.logLine());
        assertFalse(info.logLine().contains("tomcatMaxThreads"), info.logLine());
    }

    @Test
    void servletLogLineAndFramework() {
        TargetInfo info = TargetInfo.from(new MockEnvironment().withProperty("server.tomcat.threads.max", "50"));
        assertTrue(info.logLine().endsWith(" availableProcessors=" + info.availableProcessors()
                + " tomcatMaxThreads=50 virtualParallelism=" + info.virtualParallelism() + " pinnedThresholdMs=0"),
                info.logLine());
        assertTrue(info.framework().matches("Spring Boot .* \\(Spring Framework .*, Apache Tomcat/\\d+.*\\)"), info.framework());
    }

    @Test
    void cpuModelFromCpuinfo() {
        assertEquals("AMD EPYC 7B13", TargetInfo.parseCpuModel(
                "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n"));
        assertEquals("", TargetInfo.parseCpuModel("processor\t: 0\nBogoMIPS\t: 50.00\n"), "arm64 names no model");
    }

    @Test
    void contractFields() {
        TargetInfo info = TargetInfo.from(new MockEnvironment().withProperty("PINNED_THRESHOLD_MS", "15"));
        assertEquals(Runtime.version().toString(), info.runtimeVersion());
        assertEquals(TargetInfo.runtimeName() + " " + Runtime.version(), info.runtime());
        assertTrue(info.framework().startsWith("Spring Boot " + org.springframework.boot.SpringBootVersion.getVersion() + " ("),
                info.framework());
        assertTrue(info.memoryLimitBytes() >= 0);
        assertEquals(Set.of("tomcatMaxThreads", "virtualParallelism", "gc", "maxHeapBytes", "pinnedThresholdMs"),
                info.knobs().keySet());
        assertEquals("200", info.knobs().get("tomcatMaxThreads"));
        assertEquals(String.valueOf(info.maxHeapBytes()), info.knobs().get("maxHeapBytes"));
        assertEquals("15", info.knobs().get("pinnedThresholdMs"));
    }

    @Test
    void databaseKnobsWhenOneIsConfigured() {
        TargetInfo info = TargetInfo.from(new MockEnvironment().withProperty("DB_KIND", "mysql").withProperty("DB_POOL", "40"));
        assertEquals("mysql", info.knobs().get("dbKind"));
        assertEquals("40", info.knobs().get("dbPool"));
        TargetInfo byDefault = TargetInfo.from(new MockEnvironment().withProperty("DB_KIND", "postgres"));
        assertEquals("10", byDefault.knobs().get("dbPool"), "HikariCP's default pool size");
    }

    @Test
    void runtimeNameIsTheVendorsShortName() {
        // Temurin and most builds say "OpenJDK Runtime Environment".
        assertEquals(System.getProperty("java.runtime.name").replace(" Runtime Environment", ""), TargetInfo.runtimeName());
    }

    @Test
    void collectorByItsFlag() {
        assertTrue(List.of("Serial", "Parallel", "G1", "Z", "Shenandoah", "Epsilon").contains(TargetInfo.collector()),
                TargetInfo.collector());
    }

    @ParameterizedTest(name = "total {0}, host {1} -> {2}")
    @CsvSource({
            "536870912, 25276063744, 536870912",     // a container's limit below the machine's memory
            "25276063744, 25276063744, 0",           // the machine's memory: no limit
            "536870912, -1, 0",                      // no /proc/meminfo: cannot tell, so none
            "0, 25276063744, 0"})
    void memoryLimit(long total, long host, long want) {
        assertEquals(want, TargetInfo.memoryLimit(total, host));
    }

    @Test
    void parseMemTotal() {
        assertEquals(Optional.of(24683656L * 1024), TargetInfo.parseMemTotal(
                "MemTotal:       24683656 kB\nMemFree:         1000000 kB\n"));
        assertEquals(Optional.empty(), TargetInfo.parseMemTotal("MemFree: 1 kB\n"));
        assertEquals(Optional.empty(), TargetInfo.parseMemTotal("MemTotal: lots\n"));
    }
}

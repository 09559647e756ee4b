package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

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
}

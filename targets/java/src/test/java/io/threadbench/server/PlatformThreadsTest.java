package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;

/** PlatformThreadsTest runs the contract on Tomcat's platform-thread pool. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.threads.virtual.enabled=false")
class PlatformThreadsTest extends ContractTests {

    @Override
    ThreadModel model() {
        return ThreadModel.PLATFORM;
    }

    @Override
    String threadPrefix() {
        return "Thread[";
    }

    @Override
    String threadName() {
        return "-exec-"; // http-nio-127.0.0.1-<port>-exec-N
    }

    @Test
    void metricsHaveTomcatPool() throws Exception {
        String metrics = prometheus();
        assertHasFamily(metrics, "tomcat_threads_busy_threads");
        assertTrue(metrics.lines()
                        .anyMatch(l -> l.startsWith("tomcat_threads_config_max_threads{") && l.endsWith(" 200.0")),
                "tomcat_threads_config_max_threads is not 200");
    }
}

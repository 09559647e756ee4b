package io.threadbench.server;

import org.springframework.boot.test.context.SpringBootTest;

/** VirtualThreadsTest runs the contract with one virtual thread per request. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.threads.virtual.enabled=true")
class VirtualThreadsTest extends ContractTests {

    @Override
    ThreadModel model() {
        return ThreadModel.VIRTUAL;
    }

    @Override
    String threadPrefix() {
        return "VirtualThread[";
    }

    @Override
    String threadName() {
        return "tomcat-handler-";
    }
}

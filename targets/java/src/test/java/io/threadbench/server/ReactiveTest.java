package io.threadbench.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.reactor.netty.NettyWebServer;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;

import reactor.core.scheduler.Schedulers;
import reactor.netty.resources.LoopResources;
import tools.jackson.databind.JsonNode;

/**
 * ReactiveTest runs the contract with WebFlux on Reactor Netty, the metrics
 * on a port of their own as the orchestrator runs every target, and checks
 * what makes the model: the server, which threads finish which work, and
 * waits that hold no thread.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.main.web-application-type=reactive", "spring.threads.virtual.enabled=false",
                "management.server.port=0", "management.server.address=127.0.0.1"})
class ReactiveTest extends ContractTests {

    /**
     * EVENT_LOOP is in the names of the main server's event loops: Reactor
     * Netty's global reactor-http-epoll-N (or -nio-N) in the jar, and
     * webflux-http-epoll-N under Spring Boot's tests, which give each
     * context's server loops of its own so that closing it stops them.
     */
    private static final String EVENT_LOOP = "-http-";

    @LocalManagementPort
    int managementPort;

    @Autowired
    ApplicationContext context;

    @Autowired
    InflightRequests inflight;

    @Override
    ThreadModel model() {
        return ThreadModel.REACTIVE;
    }

    @Override
    String threadPrefix() {
        return "Thread[";
    }

    @Override
    String threadName() {
        return EVENT_LOOP;
    }

    /**
     * threadName: a delay ends on Reactor's parallel scheduler, blocking work
     * on boundedElastic, CPU work and a non-blocking call on an event loop.
     */
    @Override
    String threadName(String path) {
        if (path.startsWith("/api/heavy")) {
            return "parallel-";
        }
        boolean nonBlockingCall = path.startsWith("/api/downstream") && !path.matches(".*limit=[1-9].*");
        if (path.startsWith("/api/light") || path.startsWith("/api/cpu") || nonBlockingCall) {
            return EVENT_LOOP;
        }
        return "boundedElastic-";
    }

    @Override
    String server() {
        return "Reactor Netty \\d+\\.\\d+.*";
    }

    @Override
    List<String> threadKnobs() {
        return List.of("eventLoopThreads", "boundedElasticThreads");
    }

    @Override
    int metricsPort() {
        return managementPort;
    }

    @Test
    void servedByReactorNetty() throws Exception {
        assertThat(((WebServerApplicationContext) context).getWebServer()).isInstanceOf(NettyWebServer.class);
        JsonNode info = get("/info").json();
        assertEquals(String.valueOf(LoopResources.DEFAULT_IO_WORKER_COUNT), info.get("knobs").get("eventLoopThreads").asString());
        assertEquals(String.valueOf(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE),
                info.get("knobs").get("boundedElasticThreads").asString());
        assertEquals(0, info.get("tomcatMaxThreads").asInt(), "no Tomcat pool");
    }

    @Test
    void cpuOnTheEventLoopBlockingWorkOnBoundedElastic() throws Exception {
        assertThat(get("/api/cpu?work=10").json().get("thread").asString()).contains(EVENT_LOOP);
        assertThat(get("/api/lock?duration=1").json().get("thread").asString()).contains("boundedElastic-");
    }

    /**
     * heavyWaitsHoldNoThread sends 200 heavy requests of 500 ms at once. A
     * wait that held a thread would queue them behind the event loops (4 on
     * 2 CPUs) or boundedElastic's 20 threads, to end 4.5 s apart at the
     * least; timers let them all end within about one wait of each other,
     * finished by Reactor's parallel scheduler (one thread per processor).
     * The bound is 4 s, under the 4.5 s a held thread makes: a clean clone's
     * make test, its JVM starved by the jobs beside it, ended them 2,993 ms
     * apart, every one on the parallel scheduler.
     */
    @Test
    void heavyWaitsHoldNoThread() throws Exception {
        int requests = 200;
        List<Answer> answers;
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            long start = System.nanoTime();
            List<CompletableFuture<Answer>> sent = IntStream.range(0, requests)
                    .mapToObj(i -> client.sendAsync(HttpRequest.newBuilder(uri("/api/heavy?duration=500"))
                                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString())
                            .thenApply(resp -> Answer.of(resp, start)))
                    .toList(); // all sent before the first is waited for
            answers = sent.stream().map(CompletableFuture::join).sorted(Comparator.comparingLong(Answer::endMs)).toList();
        }
        long first = answers.get(0).endMs();
        long spread = answers.get(requests - 1).endMs() - first;
        assertTrue(first >= 500, "the first answered after " + first + " ms, before its 500 ms wait");
        assertTrue(spread <= 4000, requests + " waits of 500 ms ended " + spread + " ms apart");
        Set<String> threads = answers.stream().map(Answer::threadName).collect(Collectors.toSet());
        assertThat(threads).allMatch(name -> name.startsWith("parallel-"));
        assertThat(threads.size()).isLessThanOrEqualTo(Schedulers.DEFAULT_POOL_SIZE);
    }

    /** Answer is when a heavy request was answered, in ms from the start, and the name of the thread that answered it. */
    private record Answer(long endMs, String threadName) {
        static Answer of(HttpResponse<String> resp, long startNanos) {
            long endMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            assertEquals(200, resp.statusCode(), resp.body());
            String thread = new Response(resp.statusCode(), "", resp.body()).json().get("thread").asString();
            return new Answer(endMs, thread.replaceAll("^Thread\\[#\\d+,|,.*$", "")); // Thread[#42,parallel-1,5,main]
        }
    }

    @Test
    void metricsServerHasEventLoopsOfItsOwn() throws Exception {
        prometheus(); // its event loops start with its first connection at the latest
        Set<String> names = Thread.getAllStackTraces().keySet().stream().map(Thread::getName).collect(Collectors.toSet());
        assertThat(names).anyMatch(n -> n.startsWith("metrics-http-"));
        assertThat(names).anyMatch(n -> n.contains(EVENT_LOOP) && !n.startsWith("metrics-http-"));
    }

    /**
     * scrapeNotHeldUpByBlockingWork keeps every boundedElastic thread busy
     * with sleeps of 1.5 s, twice as many as it has threads (Reactor hands
     * tasks to its threads unevenly), and scrapes meanwhile: the actuator
     * would run the scrape on boundedElastic, behind them, were it not for
     * the metrics server's own event loops (ReactiveMetricsServerConfig).
     */
    @Test
    void scrapeNotHeldUpByBlockingWork() throws Exception {
        int sleepMs = 1500;
        int blocking = 2 * Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE;
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            List<CompletableFuture<HttpResponse<String>>> sleeps = IntStream.range(0, blocking)
                    .mapToObj(i -> client.sendAsync(HttpRequest.newBuilder(uri("/api/lock?duration=" + sleepMs))
                            .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()))
                    .toList();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (inflight.platform() < blocking && System.nanoTime() < deadline) { // read in-process, not by a scrape
                Thread.sleep(10);
            }
            assertEquals(blocking, inflight.platform(), "requests in flight");
            long start = System.nanoTime();
            prometheus();
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(tookMs < sleepMs / 2, "a scrape took " + tookMs + " ms with boundedElastic busy");
            for (CompletableFuture<HttpResponse<String>> sleep : sleeps) {
                assertEquals(200, sleep.get(30, TimeUnit.SECONDS).statusCode());
            }
        }
    }
}

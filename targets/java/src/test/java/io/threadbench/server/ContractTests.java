package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * ContractTests checks targets/CONTRACT.md against the server booted on a
 * random port, once per thread model (PlatformThreadsTest, VirtualThreadsTest,
 * ReactiveTest). What differs between the models (the threads that run the
 * work, the server, its knobs) each subclass says.
 */
abstract class ContractTests {

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<String> WORK_FIELDS = List.of("target", "endpoint", "durationMs", "thread", "virtual");

    /**
     * DOWNSTREAM is the service the fan-out endpoints call, shared by both
     * thread models' servers. It lives as long as the test JVM, as the
     * servers of the cached Spring contexts do.
     */
    static final FakeDownstream DOWNSTREAM = startDownstream();

    @DynamicPropertySource
    static void downstreamUrl(DynamicPropertyRegistry registry) {
        registry.add("DOWNSTREAM_URL", DOWNSTREAM::baseUrl);
    }

    private static FakeDownstream startDownstream() {
        try {
            return new FakeDownstream();
        } catch (IOException e) {
            throw new IllegalStateException("start the fake downstream", e);
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    NativeSleep nativeSleep;

    /** model is the thread model this class's server runs. */
    abstract ThreadModel model();

    /** virtual is whether this class's server runs handlers on virtual threads. */
    final boolean virtual() {
        return model().isVirtual();
    }

    /** threadPrefix is how Thread.toString() starts for a handler thread of this model. */
    abstract String threadPrefix();

    /** threadName is a part of the handler thread's name Tomcat or Spring gives it. */
    abstract String threadName();

    /**
     * threadName is a part of the name of the thread that finishes the work
     * of a request for {@code path}: the handler's, in the servlet models.
     */
    String threadName(String path) {
        return threadName();
    }

    /** server matches the server /info's framework names, after Spring's versions. */
    String server() {
        return "Apache Tomcat/\\d+.*";
    }

    /** threadKnobs are the knobs /info gives this model's thread pools. */
    List<String> threadKnobs() {
        return List.of("tomcatMaxThreads", "virtualParallelism");
    }

    /** metricsPort is where /actuator/prometheus answers: the endpoints' port unless METRICS_PORT moves it. */
    int metricsPort() {
        return port;
    }

    record Response(int status, String contentType, String body) {
        JsonNode json() {
            return JSON.readTree(body);
        }
    }

    Response get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    /**
     * rawGet sends path byte for byte, for queries java.net.URI refuses (a bad
     * escape). HTTP/1.0, so the answer is not chunked and ends with the connection.
     */
    Response rawGet(String path) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int split = answer.indexOf("\r\n\r\n");
            String head = answer.substring(0, split);
            String contentType = head.lines()
                    .filter(l -> l.toLowerCase(Locale.ROOT).startsWith("content-type:"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("");
            return new Response(Integer.parseInt(head.split(" ")[1]), contentType, answer.substring(split + 4));
        }
    }

    Response send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> resp = CLIENT.send(request.timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Response(resp.statusCode(), resp.headers().firstValue("Content-Type").orElse(""), resp.body());
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** work requests a work endpoint and checks the fields every work response has. */
    JsonNode work(String path, String endpoint, long durationMs) throws IOException, InterruptedException {
        Response resp = get(path);
        assertEquals(200, resp.status(), path + ": " + resp.body());
        assertEquals("application/json", resp.contentType(), path);
        JsonNode body = resp.json();
        List<String> fields = List.copyOf(body.propertyNames());
        assertEquals(WORK_FIELDS, fields.subList(0, Math.min(fields.size(), WORK_FIELDS.size())),
                path + " field order");
        assertEquals(model().defaultTargetName(), body.get("target").asString(), path);
        assertEquals(endpoint, body.get("endpoint").asString(), path);
        assertEquals(durationMs, body.get("durationMs").asLong(), path);
        assertEquals(virtual(), body.get("virtual").asBoolean(), path);
        String thread = body.get("thread").asString();
        assertTrue(thread.startsWith(threadPrefix()) && thread.contains(threadName(path)), path + ": thread " + thread);
        return body;
    }

    @Test
    void health() throws Exception {
        Response resp = get("/health");
        assertEquals(200, resp.status());
        assertEquals("application/json", resp.contentType());
        assertEquals("{\"status\":\"UP\"}", resp.body());
    }

    @Test
    void light() throws Exception {
        JsonNode body = work("/api/light", "light", 0);
        assertEquals(WORK_FIELDS, List.copyOf(body.propertyNames()), "light has no cpu fields");
    }

    @Test
    void heavySleepsTheDuration() throws Exception {
        long start = System.nanoTime();
        work("/api/heavy?duration=120", "heavy", 120);
        assertTookAtLeast(120, start);
    }

    @Test
    void heavyDefaultsTo100ms() throws Exception {
        work("/api/heavy", "heavy", 100);
    }

    @Test
    void nativeSleepsTheDuration() throws Exception {
        if (!nativeSleep.isAvailable()) {
            Response resp = get("/api/native?duration=10");
            assertEquals(501, resp.status(), resp.body());
            assertEquals(501, resp.json().get("status").asInt());
            return;
        }
        long start = System.nanoTime();
        work("/api/native?duration=120", "native", 120);
        assertTookAtLeast(120, start);
    }

    @Test
    void synchronizedSleepsTheDuration() throws Exception {
        long start = System.nanoTime();
        work("/api/synchronized?duration=120", "synchronized", 120);
        assertTookAtLeast(120, start);
    }

    @Test
    void heavySleepsTimesAndLogs() throws Exception {
        long start = System.nanoTime();
        work("/api/heavy?duration=60&times=2&log=1", "heavy", 120);
        assertTookAtLeast(120, start);
    }

    @Test
    void lockSleepsTheDuration() throws Exception {
        long start = System.nanoTime();
        work("/api/lock?duration=120", "lock", 120);
        assertTookAtLeast(120, start);
    }

    @Test
    void cpuKnownResults() throws Exception {
        JsonNode one = work("/api/cpu?work=1", "cpu", 0);
        assertEquals(1, one.get("work").asInt());
        assertEquals("785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9", one.get("result").asString());
        JsonNode byDefault = work("/api/cpu", "cpu", 0);
        assertEquals(1000, byDefault.get("work").asInt());
        assertEquals("ac0d7e5eb10992f9d5ee99e21e5784f0a236676f7d585ae2dfbe91639a7730c8",
                byDefault.get("result").asString());
        assertEquals(List.of("target", "endpoint", "durationMs", "thread", "virtual", "work", "result"),
                List.copyOf(byDefault.propertyNames()));
    }

    static Stream<Arguments> badParameters() {
        String duration = "duration must be an integer from 0 to 60000, ";
        String work = "work must be an integer from 0 to 100000, ";
        return Stream.of(
                Arguments.of("/api/heavy?duration=abc", duration + "got \"abc\""),
                Arguments.of("/api/heavy?duration=-1", duration + "got \"-1\""),
                Arguments.of("/api/heavy?duration=60001", duration + "got \"60001\""),
                Arguments.of("/api/heavy?duration=1.5", duration + "got \"1.5\""),
                Arguments.of("/api/heavy?duration=", duration + "got \"\""),
                Arguments.of("/api/heavy?duration=%zz", duration + "got \"%zz\""),   // Tomcat's parser would throw
                Arguments.of("/api/heavy?duration=99999999999", duration + "got \"99999999999\""),
                Arguments.of("/api/heavy?duration=1&duration=2", duration + "got 2 values"),
                Arguments.of("/api/native?duration=60001", duration + "got \"60001\""),
                Arguments.of("/api/native?duration=abc", duration + "got \"abc\""),
                Arguments.of("/api/synchronized?duration=-1", duration + "got \"-1\""),
                Arguments.of("/api/lock?duration=abc", duration + "got \"abc\""),
                Arguments.of("/api/heavy?times=0", "times must be an integer from 1 to 100, got \"0\""),
                Arguments.of("/api/heavy?log=2", "log must be an integer from 0 to 1, got \"2\""),
                Arguments.of("/api/cpu?work=100001", work + "got \"100001\""),
                Arguments.of("/api/cpu?work=-1", work + "got \"-1\""),
                Arguments.of("/api/cpu?work=x", work + "got \"x\""),
                // The fan-out's parameters, with their own ranges, as the Go target words them.
                Arguments.of("/api/fanout?calls=0", "calls must be an integer from 1 to 10000, got \"0\""),
                Arguments.of("/api/fanout?calls=10001", "calls must be an integer from 1 to 10000, got \"10001\""),
                Arguments.of("/api/fanout?limit=0", "limit must be an integer from 1 to 10000, got \"0\""),
                Arguments.of("/api/fanout?timeout=0", "timeout must be an integer from 1 to 60000, got \"0\""),
                Arguments.of("/api/fanout?duration=60001", duration + "got \"60001\""),
                Arguments.of("/api/fanout?mode=threads", MODES + "got \"threads\""),
                Arguments.of("/api/fanout?mode=Pool", MODES + "got \"Pool\""),
                Arguments.of("/api/fanout?mode=pool&mode=semaphore", MODES + "got 2 values"),
                Arguments.of("/api/fanout?mode=%zz", MODES + "got \"%zz\""),
                // The first bad parameter in the table's order is the one reported.
                Arguments.of("/api/fanout?duration=-1&calls=0", "calls must be an integer from 1 to 10000, got \"0\""),
                Arguments.of("/api/downstream?limit=-1", "limit must be an integer from 0 to 10000, got \"-1\""),
                Arguments.of("/api/downstream?limit=10001", "limit must be an integer from 0 to 10000, got \"10001\""),
                Arguments.of("/api/downstream?timeout=0", "timeout must be an integer from 1 to 60000, got \"0\""),
                Arguments.of("/api/downstream?duration=abc", duration + "got \"abc\""),
                Arguments.of("/api/db?delay=-1", "delay must be an integer from 0 to 60000, got \"-1\""),
                Arguments.of("/api/db?delay=60001", "delay must be an integer from 0 to 60000, got \"60001\""),
                Arguments.of("/api/db?delay=x", "delay must be an integer from 0 to 60000, got \"x\""));
    }

    private static final String MODES = "mode must be one of pool, unbounded, semaphore, virtual, goroutines, ";

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.threadbench.server.ContractTests#badParameters")
    void badParameter(String path, String error) throws Exception {
        Response resp = rawGet(path);
        assertEquals(400, resp.status(), resp.body());
        assertEquals("application/json", resp.contentType());
        assertEquals(400, resp.json().get("status").asInt());
        assertEquals(error, resp.json().get("error").asString());
        assertEquals(List.of("status", "error"), List.copyOf(resp.json().propertyNames()));
    }

    @Test
    void unknownPathIsJson404() throws Exception {
        Response resp = get("/api/nope");
        assertEquals(404, resp.status());
        assertEquals("no endpoint at \"/api/nope\"", resp.json().get("error").asString());
    }

    @Test
    void otherMethodsAreJson405() throws Exception {
        HttpResponse<String> resp = CLIENT.send(HttpRequest.newBuilder(uri("/api/light"))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(405, resp.statusCode());
        assertEquals(Optional.of("GET, HEAD"), resp.headers().firstValue("Allow"));
        assertEquals("method POST not allowed, use GET", JSON.readTree(resp.body()).get("error").asString());
    }

    @Test
    void info() throws Exception {
        Response resp = get("/info");
        assertEquals(200, resp.status());
        JsonNode body = resp.json();
        assertEquals(List.of("target", "threadModel", "runtime", "runtimeVersion", "framework", "availableProcessors",
                "memoryLimitBytes", "cpuModel", "knobs", "jdk", "vendor", "gc", "maxHeapBytes", "tomcatMaxThreads",
                "virtualParallelism"), List.copyOf(body.propertyNames()));
        assertEquals(model().label(), body.get("threadModel").asString());
        assertEquals(Runtime.version().toString(), body.get("runtimeVersion").asString());
        assertEquals(TargetInfo.runtimeName() + " " + Runtime.version(), body.get("runtime").asString());
        assertTrue(body.get("framework").asString().matches("Spring Boot \\d+\\.\\d+\\.\\d+.* \\(Spring Framework .*, " + server() + "\\)"),
                "framework " + body.get("framework"));
        assertEquals(Runtime.getRuntime().availableProcessors(), body.get("availableProcessors").asInt());
        assertTrue(body.get("memoryLimitBytes").isIntegralNumber() && body.get("memoryLimitBytes").asLong() >= 0);
        assertTrue(body.get("cpuModel").isString(), "cpuModel is a string");
        JsonNode knobs = body.get("knobs");
        List<String> knobNames = new ArrayList<>(threadKnobs());
        knobNames.addAll(List.of("gc", "maxHeapBytes", "pinnedThresholdMs"));
        for (String knob : knobNames) {
            assertTrue(knobs.has(knob) && knobs.get(knob).isString(), "knob " + knob + " is a string: " + knobs);
        }
        assertEquals(Set.copyOf(knobNames), Set.copyOf(knobs.propertyNames()), "this model's knobs, no others'");
        assertEquals(body.get("maxHeapBytes").asString(), knobs.get("maxHeapBytes").asString());
        // The fields /info had before the contract, still there.
        assertEquals(Runtime.version().toString(), body.get("jdk").asString());
        assertFalse(body.get("gc").isEmpty(), "gc names");
        assertTrue(body.get("maxHeapBytes").asLong() > 0);
    }

    /** fanout requests /api/fanout?query and checks the fields every fan-out response has. */
    JsonNode fanout(String query) throws IOException, InterruptedException {
        Response resp = get("/api/fanout?" + query);
        assertEquals(200, resp.status(), query + ": " + resp.body());
        JsonNode body = resp.json();
        assertEquals(List.of("target", "endpoint", "mode", "limit", "calls", "succeeded", "failed", "failures",
                "elapsedMs", "peakConcurrent", "callHistogram", "doneHistogram", "thread", "virtual"), List.copyOf(body.propertyNames()));
        assertEquals(List.of("readTimeout", "connectTimeout", "refused", "other"),
                List.copyOf(body.get("failures").propertyNames()));
        assertEquals(model().defaultTargetName(), body.get("target").asString());
        assertEquals("fanout", body.get("endpoint").asString());
        assertEquals(virtual(), body.get("virtual").asBoolean(), "the handler's thread");
        assertEquals(body.get("calls").asInt(), body.get("succeeded").asInt() + body.get("failed").asInt());
        return body;
    }

    /** histogram decodes a fan-out's histogram field (V2 compressed, base64). */
    static Histogram histogram(JsonNode body, String field) throws DataFormatException {
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(body.get(field).asString())), 0);
    }

    static Stream<Arguments> fanoutModes() {
        return Stream.of(
                Arguments.of("pool", "pool", true),
                Arguments.of("semaphore", "semaphore", true),
                Arguments.of("unbounded", "unbounded", false),
                Arguments.of("virtual", "unbounded", false),      // each runtime's word for unbounded
                Arguments.of("goroutines", "unbounded", false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.threadbench.server.ContractTests#fanoutModes")
    void fanoutSpreadsCallsByMode(String word, String mode, boolean bounded) throws Exception {
        JsonNode body = fanout("calls=20&limit=5&duration=100&mode=" + word);
        assertEquals(mode, body.get("mode").asString());
        assertEquals(20, body.get("succeeded").asInt(), body.toString());
        int peak = body.get("peakConcurrent").asInt();
        long elapsedMs = body.get("elapsedMs").asLong();
        Histogram call = histogram(body, "callHistogram");
        Histogram done = histogram(body, "doneHistogram");
        assertEquals(20, call.getTotalCount(), "every call's own time");
        assertEquals(20, done.getTotalCount(), "every call's time from the start");
        assertTrue(call.getMinValue() >= 99_900, "the shortest call took " + call.getMinValue() + " µs, want its 100 ms sleep");
        assertTrue(done.getMaxValue() <= (elapsedMs + 1) * 1_001, "the last call ended " + done.getMaxValue() + " µs in, after " + elapsedMs + " ms");
        if (bounded) {
            assertEquals(5, body.get("limit").asInt());
            assertTrue(peak > 1 && peak <= 5, "peak " + peak + ", want 2 to 5");
            assertTrue(elapsedMs >= 400, "20 calls of 100 ms, 5 at a time, took " + elapsedMs + " ms");
        } else {
            assertEquals(0, body.get("limit").asInt(), "unbounded applies no limit");
            assertTrue(peak > 5, "peak " + peak + ", want above the ignored limit of 5");
            assertTrue(elapsedMs >= 100, "took " + elapsedMs + " ms");
        }
    }

    @Test
    void fanoutDefaults() throws Exception {
        JsonNode pool = fanout("mode=pool&duration=0");
        assertEquals(100, pool.get("calls").asInt());
        assertEquals(100, pool.get("limit").asInt());
        assertEquals("unbounded", fanout("calls=1&duration=0").get("mode").asString());
    }

    // The downstream answers 1,500 ms after the 50 ms read timeout: a read
    // woken past both finds the answer and takes it (a clean clone's
    // make test, the JVM starved by the jobs beside it, read a 300 ms answer).
    @Test
    void fanoutCountsReadTimeouts() throws Exception {
        JsonNode body = fanout("calls=3&duration=1500&timeout=50");
        assertEquals(3, body.get("failed").asInt());
        assertEquals(3, body.get("failures").get("readTimeout").asInt(), body.toString());
    }

    @Test
    void downstreamAnswersWithTheWorkResponse() throws Exception {
        work("/api/downstream?duration=20", "downstream", 20);
        work("/api/downstream?duration=20&limit=3&timeout=2000", "downstream", 20);
        work("/api/downstream", "downstream", 100);
    }

    @Test
    void downstreamTimeoutIs504() throws Exception {
        Response resp = get("/api/downstream?duration=1500&timeout=50");
        assertEquals(504, resp.status(), resp.body());
        assertEquals(504, resp.json().get("status").asInt());
        assertEquals("downstream read timed out after 50 ms", resp.json().get("error").asString());
    }

    @Test
    void dbWithoutADatabaseIs503() throws Exception {
        // These servers have no DB_KIND; DatabasePostgresTest boots one with a database.
        Response resp = get("/api/db?delay=10");
        assertEquals(503, resp.status(), resp.body());
        assertEquals("application/json", resp.contentType());
        assertEquals(503, resp.json().get("status").asInt());
        assertEquals("no database configured (DB_KIND)", resp.json().get("error").asString());
    }

    @ParameterizedTest(name = "limit={0}")
    @CsvSource({"2, 1, 2", "0, 3, 6"})
    void downstreamBulkheadBoundsCallsAcrossRequests(int limit, int minPeak, int maxPeak) throws Exception {
        DOWNSTREAM.resetPeak();
        List<CompletableFuture<HttpResponse<String>>> requests = IntStream.range(0, 6)
                .mapToObj(i -> CLIENT.sendAsync(HttpRequest.newBuilder(
                                uri("/api/downstream?duration=200&limit=" + limit)).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString()))
                .toList();
        for (CompletableFuture<HttpResponse<String>> request : requests) {
            assertEquals(200, request.get(10, TimeUnit.SECONDS).statusCode());
        }
        int peak = DOWNSTREAM.peak();
        assertTrue(peak >= minPeak && peak <= maxPeak, "downstream calls in flight peaked at " + peak);
    }

    /**
     * pinnedCounterCountsWhatPins checks threadbench_virtual_pinned_total around
     * a native, a synchronized and a ReentrantLock request. None is counted on
     * JDK 24+: synchronized no longer pins (JEP 491), and a thread blocked in a
     * native call holds its carrier without ever trying to park, which is when
     * JFR records a pin. On JDK 21-23 the synchronized one pins on a virtual
     * thread; the lock one, seed 003's fix, never does.
     * What does count, a park under a native frame, is in PinnedThreadsTest.
     */
    @Test
    void pinnedCounterCountsWhatPins() throws Exception {
        // Warm up, so that no first-time class initialization pins inside the window.
        get("/api/native?duration=1");
        get("/api/synchronized?duration=1");
        get("/api/lock?duration=1");
        int synchronizedPins = virtual() && Runtime.version().feature() < 24 ? 1 : 0;
        double before = settledPins();
        assertEquals(200, get("/api/native?duration=50").status());
        assertEquals(200, get("/api/synchronized?duration=50").status());
        assertEquals(200, get("/api/lock?duration=50").status());
        double after = settledPins();
        assertEquals(before + synchronizedPins + 1, after, "pins counted: the synchronized request's "
                + synchronizedPins + ", the native and lock ones' 0, and settledPins' own 1");
    }

    /**
     * settledPins pins a virtual thread on purpose and waits, up to 10 s,
     * until the counter has seen it; as JFR delivers events in order, every pin
     * before it has been counted too. It returns the counter.
     */
    double settledPins() throws Exception {
        double start = pinnedTotal();
        Pins.inClassInitializer();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        double now = pinnedTotal();
        while (now <= start && System.nanoTime() < deadline) {
            Thread.sleep(20);
            now = pinnedTotal();
        }
        assertTrue(now > start, "the deliberate pin was not counted");
        return now;
    }

    double pinnedTotal() throws IOException, InterruptedException {
        return metric(prometheus(), "threadbench_virtual_pinned_total")
                .orElseThrow(() -> new AssertionError("no threadbench_virtual_pinned_total"));
    }

    @Test
    void carrierGaugeCountsCarriers() throws Exception {
        fanout("calls=2&duration=0&mode=unbounded"); // virtual threads in either model
        double carriers = metric(prometheus(), "threadbench_carrier_threads").orElseThrow();
        assertTrue(carriers >= 1, "carriers after a fan-out on virtual threads: " + carriers);
    }

    /** metric is the value of an unlabelled series in an exposition. */
    static Optional<Double> metric(String metrics, String name) {
        return metrics.lines()
                .filter(l -> l.startsWith(name + " "))
                .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst();
    }

    @Test
    void metricsHaveTheRequestHistogram() throws Exception {
        get("/api/light");
        String metrics = prometheus();
        assertTrue(metrics.lines().anyMatch(l -> l.startsWith("http_server_requests_seconds_bucket{")
                        && l.contains("method=\"GET\"") && l.contains("uri=\"/api/light\"")
                        && l.contains("status=\"200\"")),
                "no http_server_requests_seconds_bucket for GET /api/light 200");
        // Micrometer's VirtualThreadMetrics, registered in both models
        // (its JFR events cost nothing without virtual threads).
        assertHasFamily(metrics, "jvm_threads_virtual_pinned_seconds_count");
        assertHasFamily(metrics, "jvm_threads_virtual_submit_failed_total");
        // This target's own, in both models too.
        for (String family : List.of("threadbench_virtual_pinned_total ", "threadbench_virtual_pinned_seconds_count ",
                "threadbench_virtual_pinned_seconds_sum ", "threadbench_carrier_threads ")) {
            assertHasFamily(metrics, family);
        }
    }

    @Test
    void metricsHaveVirtualSchedulerGaugesFromJdk24() throws Exception {
        // micrometer-java21 reads jdk.management.VirtualThreadSchedulerMXBean, new in JDK 24.
        assumeTrue(Runtime.version().feature() >= 24, "no VirtualThreadSchedulerMXBean before JDK 24");
        String metrics = prometheus();
        assertHasFamily(metrics, "jvm_threads_virtual_parallelism");
        assertHasFamily(metrics, "jvm_threads_virtual_pool_size_threads");
        assertHasFamily(metrics, "jvm_threads_virtual_live_threads{scheduling_status=\"mounted\"}");
    }

    @Test
    void metricsHaveNmtGaugesWhenTracking() throws Exception {
        assumeTrue(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                        .anyMatch(a -> a.matches("-XX:NativeMemoryTracking=(summary|detail)")),
                "the JVM runs without -XX:NativeMemoryTracking");
        String metrics = prometheus();
        for (String family : List.of("jvm_nmt_total_reserved_bytes", "jvm_nmt_total_committed_bytes",
                "jvm_nmt_thread_reserved_bytes", "jvm_nmt_thread_committed_bytes",
                "jvm_nmt_thread_stack_reserved_bytes", "jvm_nmt_thread_stack_committed_bytes")) {
            assertHasFamily(metrics, family);
        }
    }

    @Test
    void inflightGaugeCountsAHeavyRequest() throws Exception {
        String mine = virtual() ? "virtual" : "platform";
        String other = virtual() ? "platform" : "virtual";
        assertEquals(Optional.of(0.0), waitForInflight(mine, 0.0), "idle, the scrape not counting itself");
        CompletableFuture<HttpResponse<String>> heavy = CLIENT.sendAsync(
                HttpRequest.newBuilder(uri("/api/heavy?duration=1500")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(Optional.of(1.0), waitForInflight(mine, 1.0), "a heavy request in flight");
        assertEquals(Optional.of(0.0), inflight(prometheus(), other), "the other kind of thread");
        assertEquals(200, heavy.get(10, TimeUnit.SECONDS).statusCode());
        assertEquals(Optional.of(0.0), waitForInflight(mine, 0.0), "the heavy request answered");
    }

    /** waitForInflight scrapes until the in-flight gauge for thread reads want, for up to 5 s; it returns the last read. */
    Optional<Double> waitForInflight(String thread, double want) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Optional<Double> got = inflight(prometheus(), thread);
        while (!got.equals(Optional.of(want)) && System.nanoTime() < deadline) {
            Thread.sleep(20);
            got = inflight(prometheus(), thread);
        }
        return got;
    }

    /** inflight is the value of threadbench_inflight_requests{thread=...} in an exposition. */
    static Optional<Double> inflight(String metrics, String thread) {
        return metrics.lines()
                .filter(l -> l.startsWith("threadbench_inflight_requests{") && l.contains("thread=\"" + thread + "\""))
                .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst();
    }

    String prometheus() throws IOException, InterruptedException {
        Response resp = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort() + "/actuator/prometheus"))
                .header("Accept", "application/json, text/plain").GET()); // what the Go contract test sends
        assertEquals(200, resp.status());
        assertTrue(resp.contentType().startsWith("text/plain"), resp.contentType());
        return resp.body();
    }

    static void assertHasFamily(String metrics, String prefix) {
        assertTrue(metrics.lines().anyMatch(l -> l.startsWith(prefix)), "no metric " + prefix);
    }

    static void assertTookAtLeast(long ms, long startNanos) {
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        assertTrue(took >= ms, "took " + took + " ms, want at least " + ms);
    }
}

package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * DatabasePostgresTest boots the target once, on virtual threads, against a
 * real PostgreSQL server (LocalPostgres) with a pool of one connection, and
 * checks /api/db, its pool's metrics and its knobs.
 */
class DatabasePostgresTest {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    static LocalPostgres postgres;
    static ConfigurableApplicationContext app;
    static int port;

    @BeforeAll
    static void start() throws Exception {
        postgres = LocalPostgres.start();
        // Arguments rank above application.properties (server.port=${PORT:8080}) and the machine's environment.
        app = new SpringApplicationBuilder(ThreadbenchApplication.class).run(
                "--server.port=0", "--spring.threads.virtual.enabled=true",
                "--DB_KIND=postgres", "--DB_HOST=127.0.0.1", "--DB_PORT=" + postgres.port(),
                "--DB_NAME=" + LocalPostgres.NAME, "--DB_USER=" + LocalPostgres.NAME, "--DB_PASSWORD=" + LocalPostgres.NAME,
                "--DB_POOL=1");
        port = app.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    @AfterAll
    static void stop() throws Exception {
        if (app != null) {
            app.close(); // the pool first, so that it does not try to reconnect to a stopped server
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void answersARowOfTheSeededTable() throws Exception {
        HttpResponse<String> resp = get("/api/db");
        assertEquals(200, resp.statusCode(), resp.body());
        JsonNode body = JSON.readTree(resp.body());
        assertEquals(List.of("target", "endpoint", "durationMs", "thread", "virtual", "row"),
                List.copyOf(body.propertyNames()));
        assertEquals("java-virtual", body.get("target").asString());
        assertEquals("db", body.get("endpoint").asString());
        assertEquals(0, body.get("durationMs").asInt());
        assertTrue(body.get("thread").asString().startsWith("VirtualThread["), body.get("thread").asString());
        JsonNode row = body.get("row");
        assertEquals(List.of("id", "name", "value"), List.copyOf(row.propertyNames()));
        int id = row.get("id").asInt();
        assertTrue(id >= 1 && id <= Database.ROWS, "id " + id);
        assertEquals("item-" + id, row.get("name").asString());
        assertEquals(LocalPostgres.value(id), row.get("value").asInt());
    }

    @Test
    void delaySleepsInTheDatabase() throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> resp = get("/api/db?delay=200");
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(200, resp.statusCode(), resp.body());
        assertEquals(200, JSON.readTree(resp.body()).get("durationMs").asInt());
        assertTrue(tookMs >= 200, "took " + tookMs + " ms");
    }

    /**
     * aSecondRequestWaitsForThePoolsOneConnection holds the one connection
     * with a sleeping request while a second waits for it. HikariCP's gauges
     * read its pool statistics at most once a second (PoolStats, cached for
     * 1 s), so the wait must last longer than that for a scrape to see it
     * for sure: 1.5 s, not 0.5 s.
     */
    @Test
    void aSecondRequestWaitsForThePoolsOneConnection() throws Exception {
        double usedBefore = gauge(prometheus(), "hikaricp_connections_usage_seconds_sum").orElse(0.0);
        long start = System.nanoTime();
        CompletableFuture<HttpResponse<String>> first = getAsync("/api/db?delay=1500");
        CompletableFuture<HttpResponse<String>> second = getAsync("/api/db?delay=1500");
        // Both in one exposition: read from two scrapes (clean clone, the
        // JUnit job beside the side phase), the second could come after the
        // first request had returned its connection.
        Map<String, Optional<Double>> both = Map.of("hikaricp_connections_pending", Optional.of(1.0),
                "hikaricp_connections_active", Optional.of(1.0));
        assertEquals(both, awaitGauges(both), "the waiting request and the sleeping one");
        assertEquals(200, first.get(10, TimeUnit.SECONDS).statusCode());
        assertEquals(200, second.get(10, TimeUnit.SECONDS).statusCode());
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs >= 3000, "two 1.5 s sleeps on one connection took " + tookMs + " ms");
        assertEquals(Optional.of(0.0), awaitGauge("hikaricp_connections_pending", 0.0), "none waits once both answered");
        // HikariCP times each hold (its usage timer, whole milliseconds):
        // each of the two held the connection through its 1.5 s sleep.
        double used = gauge(prometheus(), "hikaricp_connections_usage_seconds_sum").orElse(0.0) - usedBefore;
        assertTrue(used >= 3.0 && used < tookMs / 1000.0 + 0.1, "the connection held " + used + " s in all by its usage timer, "
                + "want the two sleeps' 3 s and no more than the " + tookMs + " ms both took");
    }

    @Test
    void poolMetricsInTheExposition() throws Exception {
        assertEquals(200, get("/api/db").statusCode());
        String metrics = prometheus();
        for (String family : List.of("hikaricp_connections_active", "hikaricp_connections_idle",
                "hikaricp_connections_pending", "hikaricp_connections", "hikaricp_connections_max",
                "hikaricp_connections_min", "hikaricp_connections_timeout_total",
                "hikaricp_connections_acquire_seconds_count", "hikaricp_connections_acquire_seconds_sum",
                "hikaricp_connections_acquire_seconds_max", "hikaricp_connections_usage_seconds_count",
                "hikaricp_connections_usage_seconds_sum", "hikaricp_connections_usage_seconds_max")) {
            assertTrue(gauge(metrics, family).isPresent(), "no " + family + "{pool=\"threadbench\"}");
        }
        assertEquals(Optional.of(1.0), gauge(metrics, "hikaricp_connections_max"));
        assertEquals(Optional.of(1.0), gauge(metrics, "hikaricp_connections_min"), "a fixed pool");
    }

    @Test
    void knobsSayTheDatabase() throws Exception {
        JsonNode knobs = JSON.readTree(get("/info").body()).get("knobs");
        assertEquals("postgres", knobs.get("dbKind").asString());
        assertEquals("1", knobs.get("dbPool").asString());
    }

    @Test
    void aFailedQueryIsTheDriversWords() throws Exception {
        postgres.createEmptyDatabase("threadbench_empty");
        DatabaseSettings empty = new DatabaseSettings(DatabaseKind.POSTGRES, "127.0.0.1", postgres.port(),
                "threadbench_empty", LocalPostgres.NAME, LocalPostgres.NAME, 1);
        try (Database database = Database.open(empty, new SimpleMeterRegistry())) {
            DatabaseException e = assertThrows(DatabaseException.class, () -> database.row(0));
            assertTrue(e.getMessage().startsWith("database: ERROR: relation \"threadbench_items\" does not exist"),
                    e.getMessage());
        }
    }

    /** gauge is the value of a family's series for the threadbench pool. */
    static Optional<Double> gauge(String metrics, String family) {
        return metrics.lines()
                .filter(l -> l.startsWith(family + "{") && l.contains("pool=\"threadbench\""))
                .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst();
    }

    /** awaitGauge scrapes until the pool's gauge reads want, for up to 5 s; it returns the last read. */
    static Optional<Double> awaitGauge(String family, double want) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Optional<Double> got = gauge(prometheus(), family);
        while (!got.equals(Optional.of(want)) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            got = gauge(prometheus(), family);
        }
        return got;
    }

    /** awaitGauges scrapes until the pool's gauges read want in one exposition, for up to 5 s; it returns the last reads. */
    static Map<String, Optional<Double>> awaitGauges(Map<String, Optional<Double>> want) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Map<String, Optional<Double>> got = gauges(prometheus(), want.keySet());
        while (!got.equals(want) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            got = gauges(prometheus(), want.keySet());
        }
        return got;
    }

    static Map<String, Optional<Double>> gauges(String metrics, Set<String> families) {
        Map<String, Optional<Double>> out = new HashMap<>();
        for (String family : families) {
            out.put(family, gauge(metrics, family));
        }
        return out;
    }

    static String prometheus() throws IOException, InterruptedException {
        HttpResponse<String> resp = get("/actuator/prometheus");
        assertEquals(200, resp.statusCode());
        return resp.body();
    }

    static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return CLIENT.send(request(path), HttpResponse.BodyHandlers.ofString());
    }

    static CompletableFuture<HttpResponse<String>> getAsync(String path) {
        return CLIENT.sendAsync(request(path), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10)).build();
    }
}

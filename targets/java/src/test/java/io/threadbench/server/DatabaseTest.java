package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** DatabaseTest covers the pool without a database server: its settings, none configured, none answering. */
class DatabaseTest {

    private static DatabaseSettings postgresAt(int port, int pool) {
        return new DatabaseSettings(DatabaseKind.POSTGRES, "127.0.0.1", port, "threadbench", "threadbench",
                "threadbench", pool);
    }

    @Test
    void noneConfiguredIs503() {
        DatabaseException e = assertThrows(DatabaseException.class, () -> Database.none().row(0));
        assertEquals("no database configured (DB_KIND)", e.getMessage());
    }

    @Test
    void aFixedPoolWithItsMetrics() {
        HikariConfig config = Database.config(postgresAt(5432, 25), new SimpleMeterRegistry(), Database.CONNECTION_TIMEOUT);
        assertEquals("threadbench", config.getPoolName());
        assertEquals("org.postgresql.Driver", config.getDriverClassName());
        assertEquals("jdbc:postgresql://127.0.0.1:5432/threadbench?sslmode=disable", config.getJdbcUrl());
        assertEquals(25, config.getMaximumPoolSize());
        assertEquals(25, config.getMinimumIdle());
        assertEquals(30_000, config.getConnectionTimeout());
        assertEquals(TimeUnit.MINUTES.toMillis(30), config.getMaxLifetime());
        assertEquals(-1, config.getInitializationFailTimeout());
        assertInstanceOf(MicrometerMetricsTrackerFactory.class, config.getMetricsTrackerFactory());
    }

    @Test
    void startsWithoutAServerAndTimesOutWaitingForOne() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Database database = Database.open(postgresAt(closedPort, 1), registry, Duration.ofSeconds(1))) {
            long start = System.nanoTime();
            DatabaseException e = assertThrows(DatabaseException.class, () -> database.row(0));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals("database: no connection in 1s (pool of 1)", e.getMessage());
            assertTrue(tookMs >= 1000, "gave up after " + tookMs + " ms");
            assertEquals(1.0, registry.get("hikaricp.connections.timeout").tag("pool", "threadbench").counter().count());
        }
    }

    @Test
    void messagesWordForWord() {
        assertEquals("database: no connection in 30s (pool of 10)",
                DatabaseException.noConnection(Database.CONNECTION_TIMEOUT, 10).getMessage());
        assertEquals("database: no connection in 250ms (pool of 1)",
                DatabaseException.noConnection(Duration.ofMillis(250), 1).getMessage());
        assertEquals("database: Connection refused", DatabaseException.failed("Connection refused").getMessage());
    }
}

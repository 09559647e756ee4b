package io.threadbench.server;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * Database is {@code /api/db}'s database: a fixed HikariCP pool of
 * {@code DB_POOL} connections, as the Go target's, built here from the DB_*
 * settings rather than by Spring Boot's datasource, with HikariCP's own
 * Micrometer metrics ({@code hikaricp_connections_*{pool="threadbench"}}).
 * The pool connects on demand and in the background, so the target starts
 * whether or not the server answers yet. Closed with the context.
 */
public final class Database implements AutoCloseable {

    /** POOL_NAME is the pool's name, the {@code pool} label of its metrics. */
    public static final String POOL_NAME = "threadbench";

    /** CONNECTION_TIMEOUT is how long a request waits for a connection: HikariCP's default. */
    public static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(30);

    /** MAX_LIFETIME is how long a connection is kept before the pool replaces it. */
    public static final Duration MAX_LIFETIME = Duration.ofMinutes(30);

    /** ROWS is how many rows the seeded table has: ids 1 to ROWS. */
    public static final int ROWS = 1000;

    private static final Database NONE = new Database(null, null, CONNECTION_TIMEOUT);

    private final DatabaseSettings settings;
    private final HikariDataSource pool;
    private final Duration connectionTimeout;

    private Database(DatabaseSettings settings, HikariDataSource pool, Duration connectionTimeout) {
        this.settings = settings;
        this.pool = pool;
        this.connectionTimeout = connectionTimeout;
    }

    /** none is the database of a target started without DB_KIND: every request gets a 503. */
    public static Database none() {
        return NONE;
    }

    /** open starts the pool for {@code settings}, its metrics on {@code registry}. */
    public static Database open(DatabaseSettings settings, MeterRegistry registry) {
        return open(settings, registry, CONNECTION_TIMEOUT);
    }

    /** open with a shorter connection timeout is for tests, which cannot wait 30 s. */
    static Database open(DatabaseSettings settings, MeterRegistry registry, Duration connectionTimeout) {
        return new Database(settings, new HikariDataSource(config(settings, registry, connectionTimeout)),
                connectionTimeout);
    }

    /** config is the pool's HikariCP configuration. */
    static HikariConfig config(DatabaseSettings settings, MeterRegistry registry, Duration connectionTimeout) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(POOL_NAME);
        config.setDriverClassName(settings.kind().driverClassName());
        config.setJdbcUrl(settings.jdbcUrl());
        config.setUsername(settings.user());
        config.setPassword(settings.password());
        config.setMaximumPoolSize(settings.pool());
        config.setMinimumIdle(settings.pool()); // a fixed pool, as the Go target's
        config.setConnectionTimeout(connectionTimeout.toMillis());
        config.setMaxLifetime(MAX_LIFETIME.toMillis());
        config.setInitializationFailTimeout(-1); // start without trying to connect
        config.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
        return config;
    }

    /** settings are the DB_* settings in effect, empty without DB_KIND. */
    public Optional<DatabaseSettings> settings() {
        return Optional.ofNullable(settings);
    }

    /**
     * row takes one connection from the pool and on it, in one statement,
     * reads the row of a random id and sleeps {@code delayMs} in the server;
     * the connection goes back to the pool either way. Every failure is a
     * DatabaseException.
     */
    public Row row(int delayMs) {
        if (pool == null) {
            throw DatabaseException.notConfigured();
        }
        int id = ThreadLocalRandom.current().nextInt(1, ROWS + 1);
        try (Connection connection = connection()) {
            return read(connection, id, delayMs);
        } catch (SQLException e) {
            throw DatabaseException.failed(e.getMessage());
        }
    }

    /** Row is a row of threadbench_items. */
    public record Row(int id, String name, int value) {
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.close();
        }
    }

    /** connection waits up to the connection timeout for a connection of the pool. */
    private Connection connection() throws SQLException {
        try {
            return pool.getConnection();
        } catch (SQLTransientConnectionException e) { // HikariCP's: none came in time
            throw DatabaseException.noConnection(connectionTimeout, settings.pool());
        }
    }

    private Row read(Connection connection, int id, int delayMs) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(settings.kind().readSql())) {
            select.setDouble(1, delayMs / 1000.0);
            select.setInt(2, id);
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    throw DatabaseException.failed("no row with id " + id + " in threadbench_items");
                }
                return new Row(rows.getInt("id"), rows.getString("name"), rows.getInt("value"));
            }
        }
    }
}

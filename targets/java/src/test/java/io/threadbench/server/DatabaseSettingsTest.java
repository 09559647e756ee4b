package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.mock.env.MockEnvironment;

/** DatabaseSettingsTest checks how the DB_* variables become the database's settings. */
class DatabaseSettingsTest {

    @Test
    void noDatabaseWithoutDbKind() {
        assertEquals(Optional.empty(), DatabaseSettings.from(new MockEnvironment()));
        assertEquals(Optional.empty(), DatabaseSettings.from(new MockEnvironment().withProperty("DB_KIND", "")));
    }

    @Test
    void postgresWithTheDefaults() {
        DatabaseSettings db = DatabaseSettings.from(new MockEnvironment().withProperty("DB_KIND", "postgres")).orElseThrow();
        assertEquals(new DatabaseSettings(DatabaseKind.POSTGRES, "127.0.0.1", 5432, "threadbench", "threadbench",
                "threadbench", 10), db);
        assertEquals("jdbc:postgresql://127.0.0.1:5432/threadbench?sslmode=disable", db.jdbcUrl());
    }

    @Test
    void mysqlAsConfigured() {
        DatabaseSettings db = DatabaseSettings.from(new MockEnvironment()
                .withProperty("DB_KIND", "mysql").withProperty("DB_HOST", "198.18.0.2").withProperty("DB_PORT", "41300")
                .withProperty("DB_NAME", "shop").withProperty("DB_USER", "app").withProperty("DB_PASSWORD", "s3cret")
                .withProperty("DB_POOL", "50")).orElseThrow();
        assertEquals(new DatabaseSettings(DatabaseKind.MYSQL, "198.18.0.2", 41300, "shop", "app", "s3cret", 50), db);
        assertEquals("jdbc:mysql://198.18.0.2:41300/shop?sslMode=DISABLED&allowPublicKeyRetrieval=true", db.jdbcUrl());
        assertFalse(db.toString().contains("s3cret"), db.toString());
    }

    @Test
    void anIpv6HostInBrackets() {
        assertEquals("jdbc:postgresql://[::1]:5432/threadbench?sslmode=disable",
                DatabaseKind.POSTGRES.jdbcUrl("::1", 5432, "threadbench"));
    }

    @Test
    void readStatementPerKind() {
        assertEquals("SELECT id, name, value, pg_sleep(?) IS NULL FROM threadbench_items WHERE id = ?",
                DatabaseKind.POSTGRES.readSql());
        assertEquals("SELECT id, name, value, SLEEP(?) FROM threadbench_items WHERE id = ?",
                DatabaseKind.MYSQL.readSql());
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "DB_KIND | oracle | DB_KIND must be postgres or mysql, got \"oracle\"",
            "DB_KIND | Postgres | DB_KIND must be postgres or mysql, got \"Postgres\"",
            "DB_POOL | 0 | DB_POOL must be an integer from 1 to 1000, got \"0\"",
            "DB_POOL | 1001 | DB_POOL must be an integer from 1 to 1000, got \"1001\"",
            "DB_POOL | ten | DB_POOL must be an integer from 1 to 1000, got \"ten\"",
            "DB_PORT | 65536 | DB_PORT must be an integer from 1 to 65535, got \"65536\""})
    void refusesWhatNoDriverCouldUse(String variable, String value, String message) {
        MockEnvironment env = new MockEnvironment().withProperty("DB_KIND", "postgres").withProperty(variable, value);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DatabaseSettings.from(env));
        assertEquals(message, e.getMessage());
    }

    @Test
    void poolCheckedEvenWithoutDbKind() {
        // As in the Go target: a typo in DB_POOL never passes unnoticed.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DatabaseSettings.from(new MockEnvironment().withProperty("DB_POOL", "-1")));
        assertTrue(e.getMessage().startsWith("DB_POOL must be"), e.getMessage());
    }
}

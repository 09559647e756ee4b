package io.threadbench.server;

import java.util.Optional;

import org.springframework.core.env.PropertyResolver;

/**
 * DatabaseSettings is the database {@code /api/db} reads, from the
 * contract's {@code DB_*} variables, which both built-in targets read alike
 * (a service of one's own uses Spring's datasource properties instead).
 * The defaults are the orchestrator's server on this host and HikariCP's
 * default pool size.
 */
public record DatabaseSettings(DatabaseKind kind, String host, int port, String name, String user, String password,
        int pool) {

    /** The variables the settings are read from. */
    static final String DB_KIND = "DB_KIND", DB_HOST = "DB_HOST", DB_PORT = "DB_PORT", DB_NAME = "DB_NAME",
            DB_USER = "DB_USER", DB_PASSWORD = "DB_PASSWORD", DB_POOL = "DB_POOL";

    /** DEFAULT_POOL is HikariCP's own default maximumPoolSize. */
    public static final int DEFAULT_POOL = 10;

    /** MAX_POOL bounds DB_POOL. */
    public static final int MAX_POOL = 1000;

    private static final String DEFAULT_HOST = "127.0.0.1";
    private static final String DEFAULT_ACCOUNT = "threadbench"; // database, user and password

    /**
     * from reads the DB_* variables: empty without DB_KIND. DB_POOL is
     * checked even without DB_KIND, so a typo never passes; a DB_KIND, pool
     * or port that no driver could use throws IllegalArgumentException,
     * which stops the target at start.
     */
    public static Optional<DatabaseSettings> from(PropertyResolver env) {
        int pool = intFrom(env, DB_POOL, DEFAULT_POOL, 1, MAX_POOL);
        String word = env.getProperty(DB_KIND, "");
        if (word.isEmpty()) {
            return Optional.empty();
        }
        DatabaseKind kind = DatabaseKind.of(word);
        return Optional.of(new DatabaseSettings(kind,
                stringFrom(env, DB_HOST, DEFAULT_HOST),
                intFrom(env, DB_PORT, kind.defaultPort(), 1, 65535),
                stringFrom(env, DB_NAME, DEFAULT_ACCOUNT),
                stringFrom(env, DB_USER, DEFAULT_ACCOUNT),
                stringFrom(env, DB_PASSWORD, DEFAULT_ACCOUNT),
                pool));
    }

    /** jdbcUrl is where the pool connects. */
    public String jdbcUrl() {
        return kind.jdbcUrl(host, port, name);
    }

    /** toString describes the settings, key=value for the startup line, without the password. */
    @Override
    public String toString() {
        return jdbcUrl() + " dbUser=" + user + " dbPool=" + pool;
    }

    private static String stringFrom(PropertyResolver env, String name, String fallback) {
        String value = env.getProperty(name, "");
        return value.isEmpty() ? fallback : value;
    }

    private static int intFrom(PropertyResolver env, String name, int fallback, int min, int max) {
        String value = env.getProperty(name, "");
        if (value.isEmpty()) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // falls through to the message
        }
        throw new IllegalArgumentException(name + " must be an integer from " + min + " to " + max + ", got "
                + ErrorBody.quote(value));
    }
}

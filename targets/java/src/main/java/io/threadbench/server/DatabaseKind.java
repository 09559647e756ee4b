package io.threadbench.server;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * DatabaseKind is a database {@code DB_KIND} can name, with what the target
 * needs to talk to it: its JDBC driver and URL, its default port and
 * {@code /api/db}'s one statement, which reads a row and spends the delay
 * inside the server (the Go target sends the same). The
 * driver settings mirror the Go target's: no TLS; MySQL's placeholders
 * filled in by the client (Connector/J's default, go-sql-driver's
 * interpolateParams), PostgreSQL's sent with the statement (both drivers'
 * extended protocol).
 */
public enum DatabaseKind {

    /** POSTGRES is PostgreSQL through pgjdbc. */
    POSTGRES("postgres", 5432, "org.postgresql.Driver", "jdbc:postgresql://", "?sslmode=disable",
            "SELECT id, name, value, pg_sleep(?) IS NULL FROM threadbench_items WHERE id = ?"),

    /**
     * MYSQL is MySQL, or MariaDB (which speaks its protocol), through
     * Connector/J; 9.0+ guards its I/O with locks, not synchronized.
     */
    MYSQL("mysql", 3306, "com.mysql.cj.jdbc.Driver", "jdbc:mysql://", "?sslMode=DISABLED&allowPublicKeyRetrieval=true",
            "SELECT id, name, value, SLEEP(?) FROM threadbench_items WHERE id = ?");

    private final String word;
    private final int defaultPort;
    private final String driverClassName;
    private final String urlPrefix;
    private final String urlOptions;
    private final String readSql;

    DatabaseKind(String word, int defaultPort, String driverClassName, String urlPrefix, String urlOptions,
            String readSql) {
        this.word = word;
        this.defaultPort = defaultPort;
        this.driverClassName = driverClassName;
        this.urlPrefix = urlPrefix;
        this.urlOptions = urlOptions;
        this.readSql = readSql;
    }

    /** of finds the kind {@code DB_KIND} names, or says which words it takes. */
    public static DatabaseKind of(String word) {
        for (DatabaseKind kind : values()) {
            if (kind.word.equals(word)) {
                return kind;
            }
        }
        throw new IllegalArgumentException(DatabaseSettings.DB_KIND + " must be " + words() + ", got "
                + ErrorBody.quote(word));
    }

    /** word is the kind as DB_KIND and /info's knobs spell it. */
    public String word() {
        return word;
    }

    /** defaultPort is the port the kind's server listens on unless told otherwise. */
    public int defaultPort() {
        return defaultPort;
    }

    /** driverClassName is the JDBC driver HikariCP loads, named so no driver lookup by URL is needed. */
    public String driverClassName() {
        return driverClassName;
    }

    /** jdbcUrl is the driver's URL of database {@code name} at {@code host}:{@code port}. */
    public String jdbcUrl(String host, int port, String name) {
        String address = host.indexOf(':') >= 0 ? "[" + host + "]" : host; // an IPv6 literal, as Go's JoinHostPort
        return urlPrefix + address + ":" + port + "/" + name + urlOptions;
    }

    /**
     * readSql reads the seeded table's row of the id given second and,
     * evaluated with that one row, sleeps in the server for the first, in
     * seconds (a double; 0 not at all): one round trip, so that a connection
     * is held for the delay and little more.
     */
    public String readSql() {
        return readSql;
    }

    private static String words() {
        return Arrays.stream(values()).map(DatabaseKind::word).collect(Collectors.joining(" or "));
    }
}

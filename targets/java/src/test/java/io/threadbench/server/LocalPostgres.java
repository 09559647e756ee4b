package io.threadbench.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * LocalPostgres is a throwaway PostgreSQL server for tests: the host's own
 * binaries (Debian's postgresql-NN, which make test installs), a cluster
 * made by initdb in a temporary directory, listening on a free loopback
 * port, with the orchestrator's account and seeded table. PostgreSQL refuses
 * to run as root, so under root (CI) it runs as the {@code postgres} user the
 * package creates; the embedded servers of io.zonky.test cannot, which is why
 * this is not one of them. Its own directory and process go with close().
 */
final class LocalPostgres implements AutoCloseable {

    /** NAME is the database, user and password, as the orchestrator's server has them. */
    static final String NAME = "threadbench";

    private static final Path INSTALLS = Path.of("/usr/lib/postgresql");
    private static final long START_TIMEOUT_MS = 20_000;

    private final Path dir;
    private final int port;
    private final Process server;

    private LocalPostgres(Path dir, int port, Process server) {
        this.dir = dir;
        this.port = port;
        this.server = server;
    }

    /** start makes a cluster, starts its server and waits until it answers. */
    static LocalPostgres start() throws IOException, InterruptedException {
        Path bin = binaries();
        Path dir = Files.createTempDirectory("threadbench-pg");
        if (asRoot()) {
            UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
            Files.setOwner(dir, users.lookupPrincipalByName("postgres"));
        }
        Path data = dir.resolve("data");
        run(dir, bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "postgres", "-A", "trust",
                "-E", "UTF8", "--locale=C", "--no-sync");
        int port = freePort();
        Process server = command(dir, bin.resolve("postgres").toString(), "-D", data.toString(), "-p", String.valueOf(port),
                "-k", dir.toString(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off")
                .redirectOutput(dir.resolve("server.log").toFile()).start();
        LocalPostgres postgres = new LocalPostgres(dir, port, server);
        try {
            postgres.awaitReady();
            postgres.seed();
        } catch (IOException | RuntimeException | InterruptedException e) {
            postgres.close();
            throw e;
        }
        return postgres;
    }

    /** port is where the server listens, on 127.0.0.1. */
    int port() {
        return port;
    }

    /** superuser connects to {@code database} as the cluster's superuser. */
    Connection superuser(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database, "postgres", "");
    }

    /** value is the seeded row's value for {@code id}. */
    static int value(int id) {
        return id * 7 % 1000;
    }

    /**
     * createEmptyDatabase makes a database {@code name} the threadbench user
     * can connect to, without the seeded table.
     */
    void createEmptyDatabase(String name) throws SQLException {
        try (Connection c = superuser("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name + " OWNER " + NAME);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (server.isAlive()) {
            // SIGINT is PostgreSQL's fast shutdown: it disconnects clients, where destroy()'s SIGTERM waits for them.
            new ProcessBuilder("kill", "-INT", String.valueOf(server.pid())).start().waitFor();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor();
            }
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** seed makes the orchestrator's account and the table /api/db reads: ids 1 to 1000. */
    private void seed() throws IOException {
        try (Connection c = superuser("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE ROLE " + NAME + " LOGIN PASSWORD '" + NAME + "'");
            s.execute("CREATE DATABASE " + NAME + " OWNER " + NAME);
        } catch (SQLException e) {
            throw new IOException("seed the account: " + e.getMessage(), e);
        }
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + NAME, NAME, NAME);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE threadbench_items (id integer PRIMARY KEY, name varchar(64), value integer)");
            s.execute("INSERT INTO threadbench_items SELECT i, 'item-' || i, i * 7 % 1000 FROM generate_series(1, "
                    + Database.ROWS + ") AS i");
        } catch (SQLException e) {
            throw new IOException("seed the table: " + e.getMessage(), e);
        }
    }

    /** awaitReady connects until the server answers, or fails with its log. */
    private void awaitReady() throws IOException, InterruptedException {
        long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
        SQLException last = null;
        while (System.currentTimeMillis() < deadline && server.isAlive()) {
            try (Connection c = superuser("postgres")) {
                return;
            } catch (SQLException e) {
                last = e;
                Thread.sleep(50);
            }
        }
        throw new IOException("PostgreSQL did not answer on port " + port + " (" + (last == null ? "exited" : last.getMessage())
                + "); its log:\n" + Files.readString(dir.resolve("server.log"), StandardCharsets.UTF_8));
    }

    /** binaries is the newest installed PostgreSQL's bin directory. */
    private static Path binaries() throws IOException {
        if (Files.isDirectory(INSTALLS)) {
            try (Stream<Path> versions = Files.list(INSTALLS)) {
                var newest = versions.map(v -> v.resolve("bin"))
                        .filter(b -> Files.isExecutable(b.resolve("postgres")) && Files.isExecutable(b.resolve("initdb")))
                        .max(Comparator.comparingInt(b -> major(b.getParent())));
                if (newest.isPresent()) {
                    return newest.get();
                }
            }
        }
        throw new IllegalStateException("no PostgreSQL server under " + INSTALLS
                + ": install Debian's postgresql-15 (apt-get install postgresql-15; make test does)");
    }

    private static int major(Path version) {
        try {
            return Integer.parseInt(version.getFileName().toString());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean asRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** command runs a server program, as the postgres user under root, in {@code dir}, output merged. */
    private static ProcessBuilder command(Path dir, String... args) {
        List<String> command = new ArrayList<>();
        if (asRoot()) {
            // setpriv execs the program itself, so the process started is the program and signals reach it.
            command.addAll(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"));
        }
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    }

    private static void run(Path dir, String... args) throws IOException, InterruptedException {
        Process p = command(dir, args).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", args) + " failed:\n" + out);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}

package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/threadbench/threadbench/internal/bench"
)

// Where Debian's postgresql-15 puts the server.
const (
	pgBin   = "/usr/lib/postgresql/15/bin"
	pgLib   = "/usr/lib/postgresql/15/lib"
	pgShare = "/usr/share/postgresql/15"
)

// pgPasswordFile holds the password initdb gives the superuser.
const pgPasswordFile = "/etc/threadbench/password"

// postgres is PostgreSQL 15 from Debian's postgresql-15. The account
// bench.DatabaseUser is the cluster's superuser, so that an init script may
// create extensions and the recording sees every session.
var postgres = flavor{
	kind:   bench.DatabasePostgres,
	title:  "PostgreSQL",
	driver: "pgx",
	image: recipe{
		repository: "threadbench/postgres",
		pkg:        "postgresql-15",
		program:    pgBin + "/postgres",
		// initdb runs the server in bootstrap mode through /bin/sh; the
		// server loads plpgsql, the snowball dictionaries and the encoding
		// conversions from its lib directory, and reads the host's
		// time-zone database.
		copies:   []string{pgBin + "/postgres", pgBin + "/initdb", pgLib, pgShare, "/usr/share/zoneinfo"},
		optional: []string{pgLib},
		// JIT needs LLVM (100 MB); it is off (jit=off). Time zones with
		// leap seconds are not PostgreSQL's.
		skip:     []string{"llvmjit.so", "llvmjit_types.bc", "bitcode", "pgxs", "right"},
		generate: postgresFiles,
	},
	args:           postgresArgs,
	dialect:        dialect{dollarQuotes: true, nestedComments: true},
	monitorDB:      "postgres",
	maxConnections: "SHOW max_connections",
	sample:         samplePostgres,
}

// postgresPrepare makes the cluster once, in the template directory, with
// the account and database every server has (prepare). initdb's own
// output stays in the container's log, for a failed preparation.
var postgresPrepare = fmt.Sprintf(`#!/bin/sh
# threadbench-prepare: a PostgreSQL cluster in the template directory, with
# the account and the database every server has.
set -e
bin=%[1]s
data=%[2]s
$bin/initdb --pgdata="$data" --username=%[3]s --pwfile=%[4]s \
	--auth-local=trust --auth-host=scram-sha-256 \
	--no-locale --encoding=UTF8 --no-sync --no-instructions
echo "CREATE DATABASE %[5]s" | $bin/postgres --single -D "$data" postgres >/dev/null
`, pgBin, templateDir, bench.DatabaseUser, pgPasswordFile, bench.DatabaseName)

// postgresStart copies the prepared cluster into the data directory and
// runs the server with the container's arguments.
var postgresStart = fmt.Sprintf(`#!/bin/sh
# threadbench-start: the prepared cluster copied into the data directory (a
# tmpfs), then the server, with the settings given as arguments.
set -e
cp -a %[2]s/. %[3]s/
exec %[1]s/postgres -D %[3]s "$@"
`, pgBin, templateDir, dataDir)

// postgresFiles are the files the image holds besides the host's.
func postgresFiles() (map[string]string, error) {
	return map[string]string{
		prepareScript:  postgresPrepare,
		startScript:    postgresStart,
		pgPasswordFile: bench.DatabasePassword + "\n",
	}, nil
}

// postgresArgs are the server's settings: listening on host:port only,
// with room for several pools, its socket where user db may write it.
func postgresArgs(host string, port int) []string {
	var args []string
	for _, s := range []string{
		"listen_addresses=" + host,
		"port=" + strconv.Itoa(port),
		"max_connections=" + strconv.Itoa(MaxConnections),
		"unix_socket_directories=/tmp",
		"jit=off",
		// Each statement's execution timed, read as db_executing.
		"shared_preload_libraries=pg_stat_statements",
	} {
		args = append(args, "-c", s)
	}
	return args
}

// The queries a PostgreSQL sample runs, on a connection to another
// database than bench.DatabaseName, so that its own transactions and
// tuples are not counted: the views read are the cluster's.
const (
	pgActivity = `SELECT coalesce(state, ''), coalesce(wait_event_type, ''), count(*)
FROM pg_stat_activity
WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()
GROUP BY 1, 2`
	pgCounters = `SELECT xact_commit + xact_rollback,
	tup_returned + tup_fetched + tup_inserted + tup_updated + tup_deleted
FROM pg_stat_database WHERE datname = $1`
	pgLocks = `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.granted AND a.datname = $1 AND a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()`
	pgExecuted = `SELECT coalesce(sum(s.total_exec_time), 0) / 1000, coalesce(sum(s.calls), 0),
	extract(epoch FROM clock_timestamp())::float8
FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`
	pgCreateStatements = "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"
	// pgUndefinedTable is the SQLSTATE of a view that does not exist yet.
	pgUndefinedTable = "42P01"
)

// samplePostgres reads pg_stat_activity, pg_stat_database and pg_locks.
func samplePostgres(ctx context.Context, db *sql.DB) (sample, error) {
	s := newSample()
	if err := pgReadActivity(ctx, db, &s); err != nil {
		return sample{}, fmt.Errorf("read pg_stat_activity: %w", err)
	}
	if err := db.QueryRowContext(ctx, pgCounters, bench.DatabaseName).Scan(&s.transactions, &s.rows); err != nil {
		return sample{}, fmt.Errorf("read pg_stat_database: %w", err)
	}
	if err := db.QueryRowContext(ctx, pgLocks, bench.DatabaseName).Scan(&s.locks); err != nil {
		return sample{}, fmt.Errorf("read pg_locks: %w", err)
	}
	before := time.Now()
	s.executed, s.statements, s.serverAt, s.timed = pgReadExecuted(ctx, db)
	s.executedAt = before.Add(time.Since(before) / 2)
	return s, nil
}

// pgReadExecuted reads the seconds the server spent executing the
// database's statements and how many it executed, in one read
// (pg_stat_statements, its library loaded at the server's start), with
// the server's clock at that read; the view made in the recording's
// database the first time; false where the server does not time them (a
// sample without).
func pgReadExecuted(ctx context.Context, db *sql.DB) (seconds, statements float64, at time.Time, timed bool) {
	var epoch float64
	err := db.QueryRowContext(ctx, pgExecuted, bench.DatabaseName).Scan(&seconds, &statements, &epoch)
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == pgUndefinedTable {
		if _, err := db.ExecContext(ctx, pgCreateStatements); err != nil {
			return 0, 0, time.Time{}, false
		}
		err = db.QueryRowContext(ctx, pgExecuted, bench.DatabaseName).Scan(&seconds, &statements, &epoch)
	}
	if err != nil {
		return 0, 0, time.Time{}, false
	}
	return seconds, statements, time.Unix(0, int64(epoch*1e9)), true
}

// pgReadActivity counts the sessions by state, and the active ones by
// what they wait for.
func pgReadActivity(ctx context.Context, db *sql.DB, s *sample) error {
	rows, err := db.QueryContext(ctx, pgActivity, bench.DatabaseName)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var state, wait string
		var n float64
		if err := rows.Scan(&state, &wait, &n); err != nil {
			return err
		}
		s.addSession(pgState(state), wait, n)
	}
	return rows.Err()
}

// pgState maps pg_stat_activity's state onto the connection states; a
// state that is none of them ("disabled", or none) is "".
func pgState(state string) string {
	switch state {
	case "active", "fastpath function call":
		return bench.DatabaseActive
	case "idle":
		return bench.DatabaseIdle
	case "idle in transaction", "idle in transaction (aborted)":
		return bench.DatabaseIdleInTransaction
	}
	return ""
}

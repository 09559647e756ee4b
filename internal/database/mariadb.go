package database

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "github.com/go-sql-driver/mysql" // registers the "mysql" driver

	"github.com/threadbench/threadbench/internal/bench"
)

// Where Debian's mariadb-server puts the server and its data files.
const (
	mariadbProgram = "/usr/sbin/mariadbd"
	mariadbShare   = "/usr/share/mysql"
)

// mariadbBootstrap is the SQL the start script feeds the server in
// bootstrap mode: the system tables, the database and the account.
const mariadbBootstrap = "/usr/share/threadbench/bootstrap.sql"

// mariadbSystemSQL are the package's scripts that make the system tables,
// as mariadb-install-db runs them; the help tables, the GIS procedures and
// the sys schema are left out, for a quicker start.
var mariadbSystemSQL = []string{"mysql_system_tables.sql", "mysql_performance_tables.sql", "mysql_system_tables_data.sql"}

// mariadb is MariaDB 10.11 from Debian's mariadb-server, for a run asking
// for MySQL: it speaks MySQL's protocol and reads its SQL.
var mariadb = flavor{
	kind:   bench.DatabaseMySQL,
	title:  "MariaDB",
	driver: "mysql",
	image: recipe{
		repository: "threadbench/mariadb",
		pkg:        "mariadb-server",
		program:    mariadbProgram,
		copies:     []string{mariadbProgram, mariadbShare + "/english", mariadbShare + "/charsets", "/usr/share/zoneinfo"},
		skip:       []string{"right"},
		generate:   mariadbFiles,
	},
	args:           mariadbArgs,
	dialect:        dialect{hashComments: true, backslashEscapes: true, backquotes: true, executableComments: true, dashNeedsBlank: true},
	maxConnections: "SELECT @@max_connections",
	sample:         sampleMariaDB,
}

// mariadbPrepare makes the system tables, the database and its account
// once, in the template directory (prepare). The redo log is 32 MiB rather
// than 96: the data directory is a tmpfs, and its files count against the
// container's memory.
var mariadbPrepare = fmt.Sprintf(`#!/bin/sh
# threadbench-prepare: MariaDB's system tables, the database and the account
# in the template directory.
set -e
%[1]s --no-defaults --datadir=%[2]s --innodb-log-file-size=32M \
	--bootstrap --log-warnings=0 --socket=/tmp/mariadb-bootstrap.sock < %[3]s
`, mariadbProgram, templateDir, mariadbBootstrap)

// mariadbStart copies the prepared data directory into the data directory
// and runs the server with the container's arguments.
var mariadbStart = fmt.Sprintf(`#!/bin/sh
# threadbench-start: the prepared system tables, database and account
# copied into the data directory (a tmpfs), then the server, with the
# settings given as arguments.
set -e
cp -a %[2]s/. %[3]s/
exec %[1]s --no-defaults --datadir=%[3]s --innodb-log-file-size=32M "$@"
`, mariadbProgram, templateDir, dataDir)

// mariadbAccount makes the database and the account, from 127.0.0.1 and
// anywhere, with every privilege (the recording reads every session), and
// drops the proxy grant to root at the host's name, which the server
// ignores with a warning when it resolves no names. In
// bootstrap mode each statement must be on a line of its own, and the
// grant tables are loaded only by FLUSH PRIVILEGES.
var mariadbAccount = fmt.Sprintf(`
DELETE FROM mysql.proxies_priv WHERE Host <> 'localhost';
FLUSH PRIVILEGES;
CREATE DATABASE %[1]s;
CREATE USER '%[2]s'@'%%' IDENTIFIED BY '%[3]s';
CREATE USER '%[2]s'@'127.0.0.1' IDENTIFIED BY '%[3]s';
GRANT ALL PRIVILEGES ON *.* TO '%[2]s'@'%%';
GRANT ALL PRIVILEGES ON *.* TO '%[2]s'@'127.0.0.1';
`, bench.DatabaseName, bench.DatabaseUser, bench.DatabasePassword)

// mariadbFiles are the files the image holds besides the host's: the
// preparing and start scripts and the bootstrap SQL, made from the package's scripts as
// mariadb-install-db makes it, root reached only through the socket by the
// system's root (of whom the container has none running).
func mariadbFiles() (map[string]string, error) {
	var b strings.Builder
	b.WriteString("CREATE DATABASE IF NOT EXISTS mysql;\nUSE mysql;\nSET @auth_root_socket='root';\n")
	for _, name := range mariadbSystemSQL {
		text, err := os.ReadFile(filepath.Join(mariadbShare, name))
		if err != nil {
			return nil, fmt.Errorf("read MariaDB's system tables: %w", err)
		}
		b.Write(text)
		b.WriteString("\n")
	}
	b.WriteString(mariadbAccount)
	return map[string]string{prepareScript: mariadbPrepare, startScript: mariadbStart, mariadbBootstrap: b.String()}, nil
}

// mariadbArgs are the server's settings: listening on host:port only, with
// room for several pools, no name lookups, its socket and pid file where
// user db may write them.
func mariadbArgs(host string, port int) []string {
	return []string{
		"--bind-address=" + host,
		"--port=" + strconv.Itoa(port),
		"--max-connections=" + strconv.Itoa(MaxConnections),
		"--skip-name-resolve",
		"--socket=/tmp/mariadb.sock",
		"--pid-file=/tmp/mariadb.pid",
		"--performance-schema=" + mariadbPerformanceSchema,
	}
}

// mariadbPerformanceSchema is whether the performance schema runs. It is
// off: sized for 500 connections it doubles the server's memory at rest
// (135 MiB more, of a container's limit meant for the run's load), and the
// recording reads information_schema, which needs none of it.
const mariadbPerformanceSchema = "OFF"

// The counters a MariaDB sample reads from its global status, less the
// recording's own session's. MariaDB counts no autocommit transactions: the
// transactions are the statements of data (each a transaction of its own
// in autocommit, as PostgreSQL counts them) and the explicit commits and
// rollbacks. It has no InnoDB row counters (Innodb_rows_read went with
// 10.6): the rows are those read from tables other than temporary ones and
// those written, updated and deleted.
var (
	myTransactionCounters = []string{"COM_COMMIT", "COM_ROLLBACK", "COM_SELECT", "COM_INSERT", "COM_INSERT_SELECT",
		"COM_UPDATE", "COM_UPDATE_MULTI", "COM_DELETE", "COM_DELETE_MULTI", "COM_REPLACE", "COM_REPLACE_SELECT"}
	myRowCounters = []string{"ROWS_READ", "HANDLER_WRITE", "HANDLER_UPDATE", "HANDLER_DELETE"}
)

// The queries a MariaDB sample runs. Sessions are those using
// bench.DatabaseName (the recording's own uses none); a sleeping session
// with an InnoDB transaction open is idle in transaction.
var (
	myActivity = `SELECT p.COMMAND, coalesce(p.STATE, ''), t.trx_id IS NOT NULL, count(*)
FROM information_schema.PROCESSLIST p
LEFT JOIN information_schema.INNODB_TRX t ON t.trx_mysql_thread_id = p.ID
WHERE p.DB = '` + bench.DatabaseName + `' AND p.ID <> CONNECTION_ID()
GROUP BY 1, 2, 3`
	myCounters = fmt.Sprintf(`SELECT %s, %s`, othersStatus(myTransactionCounters), othersStatus(myRowCounters))
	myLocks    = `SELECT coalesce(sum(trx_lock_structs), 0) FROM information_schema.INNODB_TRX
WHERE trx_mysql_thread_id <> CONNECTION_ID()`
)

// othersStatus is an expression summing status variables over every
// session but the one asking.
func othersStatus(names []string) string {
	return fmt.Sprintf("(%s) - (%s)", statusSum("GLOBAL_STATUS", names), statusSum("SESSION_STATUS", names))
}

// statusSum is a query summing status variables from an information_schema
// table of them.
func statusSum(table string, names []string) string {
	return fmt.Sprintf("SELECT coalesce(sum(VARIABLE_VALUE), 0) FROM information_schema.%s WHERE VARIABLE_NAME IN ('%s')",
		table, strings.Join(names, "', '"))
}

// sampleMariaDB reads the process list, the global status and the InnoDB
// transactions.
func sampleMariaDB(ctx context.Context, db *sql.DB) (sample, error) {
	s := newSample()
	if err := myReadActivity(ctx, db, &s); err != nil {
		return sample{}, fmt.Errorf("read the process list: %w", err)
	}
	if err := db.QueryRowContext(ctx, myCounters).Scan(&s.transactions, &s.rows); err != nil {
		return sample{}, fmt.Errorf("read the global status: %w", err)
	}
	if err := db.QueryRowContext(ctx, myLocks).Scan(&s.locks); err != nil {
		return sample{}, fmt.Errorf("read InnoDB's transactions: %w", err)
	}
	return s, nil
}

// myReadActivity counts the sessions by state, and the active ones by
// their processlist state.
func myReadActivity(ctx context.Context, db *sql.DB, s *sample) error {
	rows, err := db.QueryContext(ctx, myActivity)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var command, state string
		var inTransaction bool
		var n float64
		if err := rows.Scan(&command, &state, &inTransaction, &n); err != nil {
			return err
		}
		s.addSession(myState(command, inTransaction), state, n)
	}
	return rows.Err()
}

// myState maps a processlist command onto the connection states.
func myState(command string, inTransaction bool) string {
	switch {
	case command != "Sleep":
		return bench.DatabaseActive
	case inTransaction:
		return bench.DatabaseIdleInTransaction
	}
	return bench.DatabaseIdle
}

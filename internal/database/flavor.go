package database

import (
	"context"
	"database/sql"

	"github.com/threadbench/threadbench/internal/bench"
)

// MaxConnections is the max_connections every server starts with: room for
// several targets' pools (bench.MaxDatabasePool is one target's) and the
// recording's own connection.
const MaxConnections = 500

// Where things are inside every server's image.
const (
	// dataDir is the server's data directory: a tmpfs of the container,
	// made anew at each start.
	dataDir = "/var/lib/threadbench/data"
	// templateDir holds a data directory with the system tables, the
	// database and its account, made once when the image is assembled
	// (prepareScript), owned by dbUser.
	templateDir = "/var/lib/threadbench/template"
	// prepareScript makes templateDir; it runs once, in a container of
	// the image's root file system, which is then committed.
	prepareScript = "/usr/local/bin/threadbench-prepare"
	// startScript copies templateDir into dataDir and runs the server
	// with the container's arguments; it is the image's entrypoint.
	startScript = "/usr/local/bin/threadbench-start"
	// dbUser is the user the server runs as (PostgreSQL refuses root),
	// dbUID its user and group ID.
	dbUser = "999:999"
	dbUID  = 999
)

// localAddress is where a server of the local engine listens and is
// reached: loopback only.
const localAddress = "127.0.0.1"

// flavor is what differs from one server to the other: where its image
// comes from, how it is started and reached, how its scripts are split and
// how its figures are read. A kind is one flavor; adding one is adding a
// flavor to flavors.
type flavor struct {
	kind   string // bench.DatabasePostgres...
	title  string // for people: "PostgreSQL"
	driver string // database/sql driver name
	image  recipe
	// args are the server's settings on its command line, for a server
	// listening on host:port.
	args func(host string, port int) []string
	// dialect says how its init scripts are split into statements.
	dialect dialect
	// monitorDB is the database the recording connects to: another than
	// bench.DatabaseName where the server counts activity per database,
	// so that its own queries are not in the figures.
	monitorDB string
	// maxConnections is the query that reads max_connections.
	maxConnections string
	// sample reads the server's figures once.
	sample func(ctx context.Context, db *sql.DB) (sample, error)
}

// flavors are the servers a run may start, by kind.
var flavors = map[string]flavor{
	bench.DatabasePostgres: postgres,
	bench.DatabaseMySQL:    mariadb,
}

// lookup returns the flavor of a kind, or an EINVALID error.
func lookup(kind string) (flavor, error) {
	f, ok := flavors[kind]
	if !ok {
		return flavor{}, bench.FieldErrorf("database.kind", "must be one of %v, got %q", bench.DatabaseKinds, kind)
	}
	return f, nil
}

// label is the io.threadbench.target label of the flavor's containers,
// e.g. "database-postgres".
func (f flavor) label() string { return "database-" + f.kind }

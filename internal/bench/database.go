package bench

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"
)

// Database is a database server started beside the targets of a run, before
// them, and removed after them: PostgreSQL or MySQL (MariaDB speaks its
// protocol). Its container runs on the load generator's side of the CPU
// split, as a downstream service does, so that the targets' CPUs stay their
// own. The targets receive its connection settings through their
// environment.
type Database struct {
	// Kind is DatabasePostgres or DatabaseMySQL.
	Kind string `json:"kind" yaml:"kind"`
	// Init is SQL run once the server answers, statement by statement, after
	// the built-in table the contract's /api/db reads (DatabaseTable) is
	// made; empty leaves the schema to the service's own migrations.
	Init string `json:"init,omitempty" yaml:"init,omitempty"`
	// Pool is how many connections each target's pool holds (HikariCP's
	// maximumPoolSize, Go's SetMaxOpenConns); 0 means DefaultDatabasePool.
	Pool int `json:"pool,omitempty" yaml:"pool,omitempty"`
	// Limits are its own; zero fields take the spec's.
	Limits Limits `json:"limits,omitempty" yaml:"limits,omitempty"`
	// Env names the variables a service of one's own reads its datasource
	// from; empty fields take Spring Boot's (DefaultDatabaseEnv).
	Env DatabaseEnv `json:"env,omitempty" yaml:"env,omitempty"`
}

// DatabaseEnv names the environment variables that carry a datasource's URL
// (a JDBC URL), user name and password to a service.
type DatabaseEnv struct {
	URL      string `json:"url,omitempty" yaml:"url,omitempty"`
	Username string `json:"username,omitempty" yaml:"username,omitempty"`
	Password string `json:"password,omitempty" yaml:"password,omitempty"`
	// Pool names the variable that sizes the service's pool; empty takes
	// Spring Boot's HikariCP property.
	Pool string `json:"pool,omitempty" yaml:"pool,omitempty"`
}

// The database kinds a run may start.
const (
	DatabasePostgres = "postgres"
	DatabaseMySQL    = "mysql"
)

// DatabaseKinds lists the kinds, in the order help texts show them.
var DatabaseKinds = []string{DatabasePostgres, DatabaseMySQL}

// Database defaults and bounds.
const (
	// DefaultDatabasePool is HikariCP's own default maximumPoolSize.
	DefaultDatabasePool = 10
	MaxDatabasePool     = 1000
	// MaxDatabaseInit bounds the init script a spec carries.
	MaxDatabaseInit = 1 << 20
	// DatabaseName, DatabaseUser and DatabasePassword are the database and
	// the account every started server has. The server listens on loopback
	// (or a remote engine's bind address) only.
	DatabaseName     = "threadbench"
	DatabaseUser     = "threadbench"
	DatabasePassword = "threadbench"
	// DatabaseTable is the seeded table the contract's GET /api/db reads:
	// id (1..DatabaseRows), name, value.
	DatabaseTable = "threadbench_items"
	DatabaseRows  = 1000
)

// DefaultDatabaseEnv is Spring Boot's datasource properties as variables.
var DefaultDatabaseEnv = DatabaseEnv{
	URL:      "SPRING_DATASOURCE_URL",
	Username: "SPRING_DATASOURCE_USERNAME",
	Password: "SPRING_DATASOURCE_PASSWORD",
	Pool:     "SPRING_DATASOURCE_HIKARI_MAXIMUMPOOLSIZE",
}

// The variables the built-in targets read their database from (targets/
// CONTRACT.md), the same in every target.
const (
	EnvDBKind     = "DB_KIND"
	EnvDBHost     = "DB_HOST"
	EnvDBPort     = "DB_PORT"
	EnvDBName     = "DB_NAME"
	EnvDBUser     = "DB_USER"
	EnvDBPassword = "DB_PASSWORD"
	EnvDBPool     = "DB_POOL"
)

// PoolSize is the pool each target holds.
func (d Database) PoolSize() int {
	if d.Pool == 0 {
		return DefaultDatabasePool
	}
	return d.Pool
}

// EnvNames are the variables a service reads, Spring Boot's where unset.
func (d Database) EnvNames() DatabaseEnv {
	e, def := d.Env, DefaultDatabaseEnv
	for _, f := range []struct {
		v   *string
		def string
	}{
		{&e.URL, def.URL}, {&e.Username, def.Username}, {&e.Password, def.Password}, {&e.Pool, def.Pool},
	} {
		if *f.v == "" {
			*f.v = f.def
		}
	}
	return e
}

// Clone returns a copy of d (nil for nil).
func (d *Database) Clone() *Database {
	if d == nil {
		return nil
	}
	c := *d
	return &c
}

// DatabaseLimits are the database server's limits: its own, else the spec's.
func (s RunSpec) DatabaseLimits() Limits {
	if s.Database == nil {
		return s.Limits
	}
	return s.Limits.Over(s.Database.Limits)
}

// DatabaseConn is where a started database server answers.
type DatabaseConn struct {
	Kind     string `json:"kind"`
	Host     string `json:"host"`
	Port     int    `json:"port"`
	Name     string `json:"name"`
	User     string `json:"user"`
	Password string `json:"-"`
}

// Address is host:port.
func (c DatabaseConn) Address() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// JDBCURL is the connection's JDBC URL (MySQL Connector/J's form for
// MySQL, which MariaDB's driver reads too).
func (c DatabaseConn) JDBCURL() string {
	switch c.Kind {
	case DatabaseMySQL:
		return "jdbc:mysql://" + c.Address() + "/" + c.Name
	}
	return "jdbc:postgresql://" + c.Address() + "/" + c.Name
}

// DSN is the connection for Go's database/sql: a URL for pgx, the
// go-sql-driver form for MySQL.
func (c DatabaseConn) DSN() string {
	switch c.Kind {
	case DatabaseMySQL:
		return fmt.Sprintf("%s:%s@tcp(%s)/%s", c.User, c.Password, c.Address(), c.Name)
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(c.User, c.Password), Host: c.Address(), Path: "/" + c.Name}
	return u.String() + "?sslmode=disable"
}

// Env is the environment a target gets for the database: the contract's
// DB_* variables and the datasource variables names says, with the pool.
func (c DatabaseConn) Env(pool int, names DatabaseEnv) map[string]string {
	return map[string]string{
		EnvDBKind: c.Kind, EnvDBHost: c.Host, EnvDBPort: strconv.Itoa(c.Port), EnvDBName: c.Name,
		EnvDBUser: c.User, EnvDBPassword: c.Password, EnvDBPool: strconv.Itoa(pool),
		names.URL: c.JDBCURL(), names.Username: c.User, names.Password: c.Password, names.Pool: strconv.Itoa(pool),
	}
}

// DatabaseRuntime starts database servers on the configured engines.
// internal/database implements it.
type DatabaseRuntime interface {
	// StartDatabase builds (or finds cached) the server's image, starts it
	// on req.Engine and returns once it answers a query and req.Init has
	// run. A server that does not start, does not answer within its bound
	// or whose init fails is removed, and the error (an EUNAVAILABLE or,
	// for an init script's fault, an EINVALID *Error naming database.init
	// and its line) quotes its log.
	StartDatabase(ctx context.Context, req DatabaseRequest) (DatabaseServer, error)
}

// DatabaseRequest is how a database server is started.
type DatabaseRequest struct {
	RunID  string
	Engine string // empty means EngineLocal
	Kind   string
	Init   string
	Limits Limits
	CPUSet string
}

// DatabaseServer is a started database server that answers queries.
type DatabaseServer interface {
	Conn() DatabaseConn
	Image() ImageInfo
	ContainerID() string
	Startup() time.Duration
	// Settings say how the server runs: version, image, limits, its own
	// settings that bound a run (max_connections...).
	Settings() map[string]string
	State(ctx context.Context) (ContainerState, error)
	Logs(ctx context.Context, tail int) (string, error)
	// Record starts reading the server's figures by SQL once a second.
	Record(ctx context.Context) DatabaseRecording
	Stop(ctx context.Context) error
}

// DatabaseRecording is a database server's sampling during one target's
// attack.
type DatabaseRecording interface {
	// SetT0 sets the attack clock's zero: the first measured request.
	SetT0(t0 time.Time)
	// Stop ends sampling and summarises it per stage, given the stages as
	// measured (the warm-up first when not nil).
	Stop(ctx context.Context, warmup *StageResult, stages []StageResult) DatabaseRecordingResult
}

// DatabaseRecordingResult is what a database recording kept.
type DatabaseRecordingResult struct {
	Series    []Series        // the db_* series, T on the attack clock
	Stages    []DatabaseStage // per stage, the warm-up first when there was one
	Failures  int             // samples that failed
	LastError string
}

// DatabaseStage is a database server's figures over one stage, read by SQL
// from the server itself (pg_stat_activity, pg_stat_database, pg_locks;
// MySQL's processlist and global status).
type DatabaseStage struct {
	Stage  int  `json:"stage"`
	Warmup bool `json:"warmup,omitempty"`
	// Connections are the server's client connections by state
	// (DatabaseActive, DatabaseIdle, DatabaseIdleInTransaction): mean and
	// peak over the stage's samples.
	Connections map[string]Gauge `json:"connections,omitempty"`
	// Waits are the active sessions waiting, by what they wait for
	// (PostgreSQL's wait_event_type such as "Lock", "IO", "Timeout";
	// MySQL's processlist state), mean and peak.
	Waits              map[string]Gauge `json:"waits,omitempty"`
	TransactionsPerSec float64          `json:"transactionsPerSec"`
	RowsPerSec         float64          `json:"rowsPerSec"`
	Locks              Gauge            `json:"locks"`
	Samples            int              `json:"samples"`
	// Executing is how many statements the server was executing on
	// average, by its own timing of each (PostgreSQL's pg_stat_statements:
	// seconds of execution per second), where the active connections are
	// only sampled; 0 where the server does not time its statements.
	Executing float64 `json:"executing,omitempty"`
	// StatementsPerSec are the statements the server executed per second,
	// read with Executing (PostgreSQL: pg_stat_statements' calls); 0 where
	// it does not time them.
	StatementsPerSec float64 `json:"statementsPerSec,omitempty"`
}

// StatementMs is the mean time of the stage's statements in the server, in
// ms: its execution time over their number, both read at once, so that it
// holds whatever the instants the server was read at (Executing over the
// load's requests per second divides figures of two windows); 0 where the
// server does not time them.
func (d DatabaseStage) StatementMs() float64 {
	if d.StatementsPerSec <= 0 {
		return 0
	}
	return d.Executing / d.StatementsPerSec * 1000
}

// Connection states as DatabaseStage.Connections keys them.
const (
	DatabaseActive            = "active"
	DatabaseIdle              = "idle"
	DatabaseIdleInTransaction = "idle in transaction"
)

// DatabaseResult is what became of a run's database server.
type DatabaseResult struct {
	Kind      string            `json:"kind"`
	Status    TargetStatus      `json:"status"`
	Error     string            `json:"error,omitempty"`
	Address   string            `json:"address,omitempty"`
	Image     ImageInfo         `json:"image"`
	Limits    Limits            `json:"limits"`
	CPUSet    string            `json:"cpuset,omitempty"`
	Pool      int               `json:"pool"`
	Settings  map[string]string `json:"settings,omitempty"`
	StartupMs float64           `json:"startupMs,omitempty"`
}

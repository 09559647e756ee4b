package server

import (
	"context"
	"database/sql/driver"
	"fmt"
	"net"
	"net/url"
	"strconv"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// The variables the database is read from, as internal/bench/database.go
// names them (EnvDBKind...). The target is built from its own sources and
// go.mod alone, so it cannot import them.
const (
	envDBKind     = "DB_KIND"
	envDBHost     = "DB_HOST"
	envDBPort     = "DB_PORT"
	envDBName     = "DB_NAME"
	envDBUser     = "DB_USER"
	envDBPassword = "DB_PASSWORD"
	envDBPool     = "DB_POOL"
)

// The database kinds DB_KIND names.
const (
	dbPostgres = "postgres"
	dbMySQL    = "mysql"
)

// Defaults of the database settings: the orchestrator's server
// (internal/bench's DatabaseName...) on this host, and HikariCP's default
// pool size.
const (
	defaultDBHost       = "127.0.0.1"
	defaultDBAccount    = "threadbench" // database, user and password
	defaultDBPool       = 10
	maxDBPool           = 1000
	defaultPostgresPort = 5432
	defaultMySQLPort    = 3306
)

// DBConfig is the database /api/db reads (DB_*); a zero Kind means none.
type DBConfig struct {
	Kind     string // DB_KIND: postgres or mysql
	Host     string // DB_HOST
	Port     int    // DB_PORT
	Name     string // DB_NAME
	User     string // DB_USER
	Password string // DB_PASSWORD
	Pool     int    // DB_POOL: connections in the pool
}

// dbConfigFromEnv reads the DB_* variables. DB_POOL is checked even
// without DB_KIND, so that a typo never passes; the others are read only
// with it. A configuration no driver could use is refused here, at start.
func dbConfigFromEnv(getenv func(string) string) (DBConfig, error) {
	pool, err := envInt(getenv, envDBPool, defaultDBPool, 1, maxDBPool)
	if err != nil {
		return DBConfig{}, err
	}
	kind := getenv(envDBKind)
	if kind == "" {
		return DBConfig{}, nil
	}
	if _, ok := dialects[kind]; !ok {
		return DBConfig{}, fmt.Errorf("%s must be %s or %s, got %q", envDBKind, dbPostgres, dbMySQL, kind)
	}
	cfg := DBConfig{Kind: kind, Pool: pool, Host: envOr(getenv, envDBHost, defaultDBHost),
		Name: envOr(getenv, envDBName, defaultDBAccount), User: envOr(getenv, envDBUser, defaultDBAccount),
		Password: envOr(getenv, envDBPassword, defaultDBAccount)}
	if cfg.Port, err = envInt(getenv, envDBPort, defaultDBPort(kind), 1, 65535); err != nil {
		return DBConfig{}, err
	}
	if _, err := cfg.connector(); err != nil {
		return DBConfig{}, fmt.Errorf("database settings (DB_*): %w", err)
	}
	return cfg, nil
}

// defaultDBPort is the port each kind's server listens on by default.
func defaultDBPort(kind string) int {
	if kind == dbMySQL {
		return defaultMySQLPort
	}
	return defaultPostgresPort
}

// envOr returns the variable's value, or def when it is unset or empty.
func envOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}

// envInt returns the variable as an integer from lo to hi, or def when it
// is unset or empty.
func envInt(getenv func(string) string, name string, def, lo, hi int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s must be an integer from %d to %d, got %q", name, lo, hi, v)
	}
	return n, nil
}

// address is host:port.
func (c DBConfig) address() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// connector returns the driver's connector for c: pgx for postgres,
// go-sql-driver for mysql. Neither connects before it is asked to.
func (c DBConfig) connector() (driver.Connector, error) {
	switch c.Kind {
	case dbPostgres:
		u := url.URL{Scheme: "postgres", User: url.UserPassword(c.User, c.Password), Host: c.address(),
			Path: "/" + c.Name, RawQuery: "sslmode=disable"}
		cfg, err := pgx.ParseConfig(u.String())
		if err != nil {
			return nil, err
		}
		return stdlib.GetConnector(*cfg), nil
	case dbMySQL:
		cfg := mysql.NewConfig()
		cfg.Net, cfg.Addr, cfg.DBName = "tcp", c.address(), c.Name
		cfg.User, cfg.Passwd = c.User, c.Password
		// Placeholders filled in by the client, in one round trip, as
		// Connector/J does by default (useServerPrepStmts=false).
		cfg.InterpolateParams = true
		return mysql.NewConnector(cfg)
	}
	return nil, fmt.Errorf("no database kind %q", c.Kind)
}

var _ driver.Connector = failingConnector{}

// failingConnector is the connector of a configuration no driver takes:
// every connection fails with err, so /api/db says why.
type failingConnector struct{ err error }

// Connect fails.
func (f failingConnector) Connect(context.Context) (driver.Conn, error) { return nil, f.err }

// Driver returns nil: database/sql only hands it out through DB.Driver,
// which nothing here calls.
func (f failingConnector) Driver() driver.Driver { return nil }

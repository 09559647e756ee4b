package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"time"
)

// noDatabase is /api/db's 503 message when DB_KIND is unset.
const noDatabase = "no database configured (DB_KIND)"

// Pool settings, HikariCP's defaults: a request waits at most 30 s for a
// connection (connectionTimeout), and a connection lives 30 min
// (maxLifetime), longer than a run, and is never closed for being idle
// (a fixed-size pool has no idleTimeout).
const (
	acquireTimeout  = 30 * time.Second
	connMaxLifetime = 30 * time.Minute
)

// dbRows is how many rows the seeded table has: ids 1..dbRows.
const dbRows = 1000

// dialect is the SQL of one database kind.
type dialect struct {
	// read is one statement: it reads the seeded table's row of the id
	// given second and, evaluated with that one row, sleeps in the server
	// for its first argument, in seconds (0: not at all). One round trip,
	// so that a connection is held for the delay and little more: the
	// pool's bound is its size ÷ the delay.
	read string
}

// dialects are the SQL per DB_KIND (the Java target sends the same).
var dialects = map[string]dialect{
	dbPostgres: {read: "SELECT id, name, value, pg_sleep($1) IS NULL FROM threadbench_items WHERE id = $2"},
	dbMySQL:    {read: "SELECT id, name, value, SLEEP(?) FROM threadbench_items WHERE id = ?"},
}

// database is /api/db's pool of connections, with what its metrics count
// beyond database/sql's own statistics.
type database struct {
	db             *sql.DB
	kind           string
	dialect        dialect
	pool           int
	acquireTimeout time.Duration
	pending        atomic.Int64 // requests waiting for a connection now
	timeouts       atomic.Int64 // waits that ended for acquireTimeout
	acquired       timer        // how long getting a connection took
	used           timer        // how long a connection was held, from got to given back
}

// openDatabase returns the pool cfg describes. No connection is made until
// a request needs one, so the target starts whether or not the database
// answers yet; a configuration no driver takes fails every request instead.
func openDatabase(cfg DBConfig) *database {
	connector, err := cfg.connector()
	if err != nil {
		connector = failingConnector{err: err}
	}
	return newDatabase(sql.OpenDB(connector), cfg.Kind, cfg.Pool)
}

// newDatabase sizes db's pool to pool connections, all kept open.
func newDatabase(db *sql.DB, kind string, pool int) *database {
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	db.SetConnMaxLifetime(connMaxLifetime)
	db.SetConnMaxIdleTime(0)
	return &database{db: db, kind: kind, dialect: dialects[kind], pool: pool,
		acquireTimeout: acquireTimeout}
}

// close closes the pool's connections.
func (d *database) close() { _ = d.db.Close() }

// errAcquireTimeout is the cause of an acquire's context when it timed out.
var errAcquireTimeout = errors.New("acquire timeout")

// conn takes one connection from the pool, waiting at most acquireTimeout
// or until ctx ends. It counts itself pending while it waits, and records
// how long it took when it got one or timed out, as HikariCP does.
func (d *database) conn(ctx context.Context) (*sql.Conn, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, d.acquireTimeout, errAcquireTimeout)
	defer cancel()
	d.pending.Add(1)
	start := time.Now()
	conn, err := d.db.Conn(ctx)
	d.pending.Add(-1)
	timedOut := err != nil && errors.Is(context.Cause(ctx), errAcquireTimeout)
	if err == nil || timedOut {
		d.acquired.record(time.Since(start))
	}
	if timedOut {
		d.timeouts.Add(1)
		return nil, fmt.Errorf("no connection in %v (pool of %d)", d.acquireTimeout, d.pool)
	}
	return conn, err
}

// dbRow is a row of the seeded table, as /api/db answers it.
type dbRow struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

// appendFields appends the row to a work response.
func (row *dbRow) appendFields(b []byte) []byte {
	body, err := json.Marshal(row)
	if err != nil {
		panic(err) // a struct of integers and a string always marshals
	}
	return append(append(b, `,"row":`...), body...)
}

// read reads the row of id and sleeps delay in the database, in one
// statement on one connection of the pool, which it returns after.
func (d *database) read(ctx context.Context, delay time.Duration, id int) (dbRow, error) {
	conn, err := d.conn(ctx)
	if err != nil {
		return dbRow{}, err
	}
	got := time.Now()
	defer func() {
		_ = conn.Close()
		d.used.record(time.Since(got)) // as HikariCP times a connection's usage: from borrowed to recycled
	}()
	var row dbRow
	var slept any // pg_sleep's void, tested for NULL; SLEEP's 0
	err = conn.QueryRowContext(ctx, d.dialect.read, delay.Seconds(), id).Scan(&row.ID, &row.Name, &row.Value, &slept)
	return row, err
}

// serveDB answers GET /api/db: after a delay spent in the database, a row
// of the seeded table picked at random; 503 without a database or when it
// fails. The request's context ends the wait for a connection and the
// queries.
func (h *handler) serveDB(w http.ResponseWriter, r *http.Request) int {
	delayMs, err := delayParam.parse(r.URL.RawQuery)
	if err != nil {
		return writeError(w, http.StatusBadRequest, err.Error())
	}
	if h.database == nil {
		return writeError(w, http.StatusServiceUnavailable, noDatabase)
	}
	delay := time.Duration(delayMs) * time.Millisecond
	row, err := h.database.read(r.Context(), delay, rand.IntN(dbRows)+1)
	if err != nil {
		return writeError(w, http.StatusServiceUnavailable, "database: "+err.Error())
	}
	writeWork(w, r, h.targetJSON, "db", delayMs, &row)
	return http.StatusOK
}

package server

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// fakeDB is a database/sql driver, used through its connector, that
// answers /api/db's statement in either kind's SQL without a server. It
// records every statement; one that sleeps more than 0 s waits for gate to
// close (when set) or its context to end; fail, when set, fails every
// statement.
type fakeDB struct {
	gate  chan struct{} // nil: sleeps return at once
	slept chan string   // told each sleep's query as it starts, when not nil
	fail  error

	mu         sync.Mutex
	statements []statement
}

var (
	_ driver.Connector      = (*fakeDB)(nil)
	_ driver.QueryerContext = (*fakeConn)(nil)
)

// statement is a query as the driver received it, with its arguments.
type statement struct {
	query string
	args  []any
}

// Connect opens a connection, which costs nothing.
func (f *fakeDB) Connect(context.Context) (driver.Conn, error) { return &fakeConn{f}, nil }

// Driver is the connector's driver; database/sql does not use it here.
func (f *fakeDB) Driver() driver.Driver { return nil }

// sent returns the statements received so far.
func (f *fakeDB) sent() []statement {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.statements)
}

func (f *fakeDB) record(query string, args []driver.NamedValue) {
	s := statement{query: query}
	for _, a := range args {
		s.args = append(s.args, a.Value)
	}
	f.mu.Lock()
	f.statements = append(f.statements, s)
	f.mu.Unlock()
}

// fakeConn is one connection to a fakeDB.
type fakeConn struct{ f *fakeDB }

func (c *fakeConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("fake: no prepare") }
func (c *fakeConn) Close() error                        { return nil }
func (c *fakeConn) Begin() (driver.Tx, error)           { return nil, errors.New("fake: no transactions") }

// QueryContext answers /api/db's statement: it sleeps its first
// argument's seconds (waiting on the gate instead, when set), then answers
// the row of the id given second: "item-<id>", value id*10, and what the
// sleep returns.
func (c *fakeConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.f.record(query, args)
	if c.f.fail != nil {
		return nil, c.f.fail
	}
	if len(args) != 2 || !strings.Contains(query, "FROM threadbench_items") || (!strings.Contains(query, "SLEEP(") && !strings.Contains(query, "pg_sleep(")) {
		return nil, fmt.Errorf("fake: unknown query %q %v", query, args)
	}
	seconds, okSleep := args[0].Value.(float64)
	id, okID := args[1].Value.(int64)
	if !okSleep || !okID {
		return nil, fmt.Errorf("fake: arguments %v, want seconds and an id", args)
	}
	if seconds > 0 && c.f.slept != nil {
		c.f.slept <- query
	}
	if seconds > 0 && c.f.gate != nil {
		select {
		case <-c.f.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &fakeRows{row: []driver.Value{id, fmt.Sprintf("item-%d", id), id * 10, int64(0)}}, nil
}

// fakeRows is a result of one row.
type fakeRows struct {
	row  []driver.Value
	read bool
}

func (r *fakeRows) Columns() []string { return []string{"id", "name", "value", "slept"} }
func (r *fakeRows) Close() error      { return nil }

func (r *fakeRows) Next(dest []driver.Value) error {
	if r.read {
		return io.EOF
	}
	r.read = true
	copy(dest, r.row)
	return nil
}

// failingDial is a connector whose every connection fails.
type failingDial struct{ err error }

func (f failingDial) Connect(context.Context) (driver.Conn, error) { return nil, f.err }
func (f failingDial) Driver() driver.Driver                        { return nil }

// dbHandler mounts the contract's handler with a pool of pool connections
// made by connector, of the kind's SQL, waiting for one at most timeout.
func dbHandler(t *testing.T, connector driver.Connector, kind string, pool int, timeout time.Duration, opts ...Option) *Handler {
	t.Helper()
	d := newDatabase(sql.OpenDB(connector), kind, pool)
	d.acquireTimeout = timeout
	h := NewHandler("go-db", append(opts, func(h *handler) { h.database = d })...)
	t.Cleanup(h.Close)
	return h
}

// dbResponse is /api/db's answer.
type dbResponse struct {
	Target     string `json:"target"`
	Endpoint   string `json:"endpoint"`
	DurationMs *int   `json:"durationMs"`
	Thread     string `json:"thread"`
	Row        *struct {
		ID    int64   `json:"id"`
		Name  string  `json:"name"`
		Value float64 `json:"value"`
	} `json:"row"`
	Status int    `json:"status"`
	Error  string `json:"error"`
}

// getDB requests path from h with ctx and decodes the answer.
func getDB(t *testing.T, ctx context.Context, h http.Handler, path string) (int, dbResponse) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil))
	var resp dbResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatalf("GET %s: %v; body %s", path, err, rec.Body)
	}
	return rec.Code, resp
}

// TestDBAnswersARow checks the 200 answer and the one statement each kind
// sends: the sleep, in seconds, and the row of a random id.
func TestDBAnswersARow(t *testing.T) {
	const (
		pgRead    = "SELECT id, name, value, pg_sleep($1) IS NULL FROM threadbench_items WHERE id = $2"
		mysqlRead = "SELECT id, name, value, SLEEP(?) FROM threadbench_items WHERE id = ?"
	)
	for _, tt := range []struct {
		kind    string
		path    string
		delayMs int
		seconds float64
		read    string
	}{
		{dbPostgres, "/api/db?delay=250", 250, 0.25, pgRead},
		{dbMySQL, "/api/db?delay=250", 250, 0.25, mysqlRead},
		// A whole number of seconds is still passed as a float.
		{dbPostgres, "/api/db?delay=2000", 2000, 2, pgRead},
		// delay=0 sleeps 0 s.
		{dbPostgres, "/api/db?delay=0", 0, 0, pgRead},
		{dbMySQL, "/api/db?delay=0", 0, 0, mysqlRead},
		// The default delay is 0.
		{dbMySQL, "/api/db", 0, 0, mysqlRead},
	} {
		t.Run(tt.kind+" "+tt.path, func(t *testing.T) {
			fake := &fakeDB{}
			status, resp := getDB(t, t.Context(), dbHandler(t, fake, tt.kind, 10, time.Second), tt.path)
			if status != http.StatusOK || resp.Row == nil {
				t.Fatalf("status %d, row %v, want 200 and a row; error %q", status, resp.Row, resp.Error)
			}
			id := resp.Row.ID
			if id < 1 || id > dbRows || resp.Row.Name != fmt.Sprintf("item-%d", id) || resp.Row.Value != float64(id*10) {
				t.Errorf("row = %+v, want the fake's row of an id from 1 to %d", *resp.Row, dbRows)
			}
			if resp.Target != "go-db" || resp.Endpoint != "db" || resp.DurationMs == nil || *resp.DurationMs != tt.delayMs {
				t.Errorf("target %q endpoint %q durationMs %v, want go-db, db, %d", resp.Target, resp.Endpoint, resp.DurationMs, tt.delayMs)
			}
			if !strings.HasPrefix(resp.Thread, "goroutine ") {
				t.Errorf("thread = %q, want a goroutine", resp.Thread)
			}
			want := []statement{{query: tt.read, args: []any{tt.seconds, id}}}
			if got := fake.sent(); !reflect.DeepEqual(got, want) {
				t.Errorf("statements sent %v, want %v", got, want)
			}
		})
	}
}

// TestDBUnavailable checks /api/db's 503s and that a bad parameter is a
// 400 before anything else, with a database or without.
func TestDBUnavailable(t *testing.T) {
	refused := errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")
	for _, tt := range []struct {
		name    string
		handler func(t *testing.T) *Handler
		path    string
		status  int
		message string
	}{
		{"no DB_KIND", func(*testing.T) *Handler { return NewHandler("go") }, "/api/db?delay=10",
			http.StatusServiceUnavailable, "no database configured (DB_KIND)"},
		{"no DB_KIND, bad delay", func(*testing.T) *Handler { return NewHandler("go") }, "/api/db?delay=-1",
			http.StatusBadRequest, `delay must be an integer from 0 to 60000, got "-1"`},
		{"bad delay", func(t *testing.T) *Handler { return dbHandler(t, &fakeDB{}, dbPostgres, 1, time.Second) },
			"/api/db?delay=60001", http.StatusBadRequest, `delay must be an integer from 0 to 60000, got "60001"`},
		{"a statement fails", func(t *testing.T) *Handler {
			return dbHandler(t, &fakeDB{fail: errors.New(`relation "threadbench_items" does not exist`)}, dbPostgres, 1, time.Second)
		}, "/api/db", http.StatusServiceUnavailable, `database: relation "threadbench_items" does not exist`},
		{"no connection can be made", func(t *testing.T) *Handler {
			return dbHandler(t, failingDial{refused}, dbMySQL, 1, time.Second)
		}, "/api/db?delay=5", http.StatusServiceUnavailable, "database: " + refused.Error()},
		// A configuration no driver takes fails each request, saying why.
		{"unknown kind", func(t *testing.T) *Handler {
			h := NewHandler("go", WithDatabase(DBConfig{Kind: "oracle", Pool: 1}))
			t.Cleanup(h.Close)
			return h
		}, "/api/db", http.StatusServiceUnavailable, `database: no database kind "oracle"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, resp := getDB(t, t.Context(), tt.handler(t), tt.path)
			if status != tt.status || resp.Status != tt.status || resp.Error != tt.message {
				t.Errorf("status %d, body %d %q; want %d %q", status, resp.Status, resp.Error, tt.status, tt.message)
			}
		})
	}
}

// serveAsync serves a GET of path with ctx in the background; the channel
// gets the response.
func serveAsync(ctx context.Context, h http.Handler, path string) <-chan *httptest.ResponseRecorder {
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil))
		done <- rec
	}()
	return done
}

// holdConnection starts a request that takes a connection and sleeps in
// the database until fake's gate closes, and returns once it sleeps. The
// channel gets the request's status.
func holdConnection(t *testing.T, h http.Handler, fake *fakeDB) <-chan *httptest.ResponseRecorder {
	t.Helper()
	done := serveAsync(context.Background(), h, "/api/db?delay=1")
	select {
	case <-fake.slept:
	case <-time.After(5 * time.Second):
		t.Fatal("the first request never slept in the database")
	}
	return done
}

// TestDBPendingConnection checks the gauges while a second request waits
// for the only connection of a pool of 1, and after both are served.
func TestDBPendingConnection(t *testing.T) {
	fake := &fakeDB{gate: make(chan struct{}), slept: make(chan string, 2)}
	h := dbHandler(t, fake, dbPostgres, 1, 10*time.Second)
	first := holdConnection(t, h, fake)
	second := serveAsync(context.Background(), h, "/api/db")
	waiting := waitForGauge(t, h, "hikaricp_connections_pending", 1)
	for name, want := range map[string]float64{"hikaricp_connections_pending": 1, "hikaricp_connections_active": 1,
		"hikaricp_connections_idle": 0, "hikaricp_connections": 1, "hikaricp_connections_max": 1} {
		if got := value(waiting[name]); got != want {
			t.Errorf("while one waits: %s = %v, want %v", name, got, want)
		}
	}
	close(fake.gate)
	if a, b := (<-first).Code, (<-second).Code; a != http.StatusOK || b != http.StatusOK {
		t.Fatalf("statuses %d and %d, want 200 twice", a, b)
	}
	served := scrape(t, h)
	for name, want := range map[string]float64{"hikaricp_connections_pending": 0, "hikaricp_connections_active": 0,
		"hikaricp_connections_idle": 1, "hikaricp_connections_timeout_total": 0} {
		if got := value(served[name]); got != want {
			t.Errorf("once served: %s = %v, want %v", name, got, want)
		}
	}
	if got := served["hikaricp_connections_acquire_seconds"].GetMetric()[0].GetSummary().GetSampleCount(); got != 2 {
		t.Errorf("acquire count = %d, want 2", got)
	}
}

// TestDBAcquireTimeout checks a wait for a connection that times out: 503
// after the acquire timeout, counted as a timeout and in the acquire time.
func TestDBAcquireTimeout(t *testing.T) {
	const timeout = 100 * time.Millisecond
	fake := &fakeDB{gate: make(chan struct{}), slept: make(chan string, 1)}
	h := dbHandler(t, fake, dbMySQL, 1, timeout)
	first := holdConnection(t, h, fake)
	start := time.Now()
	status, resp := getDB(t, t.Context(), h, "/api/db")
	waited := time.Since(start)
	close(fake.gate)
	if want := "database: no connection in 100ms (pool of 1)"; status != http.StatusServiceUnavailable || resp.Error != want {
		t.Errorf("status %d %q, want 503 %q", status, resp.Error, want)
	}
	if waited < timeout {
		t.Errorf("answered after %v, before the acquire timeout of %v", waited, timeout)
	}
	if got := (<-first).Code; got != http.StatusOK {
		t.Errorf("the request holding the connection: status %d, want 200", got)
	}
	families := scrape(t, h)
	if got := value(families["hikaricp_connections_timeout_total"]); got != 1 {
		t.Errorf("timeouts = %v, want 1", got)
	}
	acquire := families["hikaricp_connections_acquire_seconds"].GetMetric()[0].GetSummary()
	if acquire.GetSampleCount() != 2 || acquire.GetSampleSum() < timeout.Seconds() {
		t.Errorf("acquire count %d sum %v, want 2 and at least %v", acquire.GetSampleCount(), acquire.GetSampleSum(), timeout.Seconds())
	}
	if got := value(families["hikaricp_connections_acquire_seconds_max"]); got < timeout.Seconds() {
		t.Errorf("acquire max = %v, want at least %v", got, timeout.Seconds())
	}
	// One request held the connection, from before the other's wait began
	// until after it timed out; the one that timed out held none.
	usage := families["hikaricp_connections_usage_seconds"].GetMetric()[0].GetSummary()
	if usage.GetSampleCount() != 1 || usage.GetSampleSum() < waited.Seconds() {
		t.Errorf("usage count %d sum %v, want 1 and at least the %v the other waited", usage.GetSampleCount(), usage.GetSampleSum(), waited)
	}
	if got := value(families["hikaricp_connections_usage_seconds_max"]); got < waited.Seconds() {
		t.Errorf("usage max = %v, want at least %v", got, waited.Seconds())
	}
}

// TestDBCancelled checks that the request's context ends the wait for a
// connection and the query, neither counted as a timeout, and that the
// connection goes back to the pool.
func TestDBCancelled(t *testing.T) {
	for _, tt := range []struct {
		name string
		hold bool // another request holds the only connection
	}{
		{"while sleeping in the database", false},
		{"while waiting for a connection", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeDB{gate: make(chan struct{}), slept: make(chan string, 1)}
			h := dbHandler(t, fake, dbPostgres, 1, 10*time.Second)
			var first <-chan *httptest.ResponseRecorder
			if tt.hold {
				first = holdConnection(t, h, fake)
			}
			ctx, cancel := context.WithCancel(t.Context())
			cancelled := serveAsync(ctx, h, "/api/db?delay=1000")
			if tt.hold {
				waitForGauge(t, h, "hikaricp_connections_pending", 1)
			} else {
				<-fake.slept
			}
			cancel()
			rec := <-cancelled
			close(fake.gate)
			want := `{"status":503,"error":"database: context canceled"}`
			if rec.Code != http.StatusServiceUnavailable || rec.Body.String() != want {
				t.Errorf("status %d %s, want 503 %s", rec.Code, rec.Body, want)
			}
			if first != nil && (<-first).Code != http.StatusOK {
				t.Error("the request holding the connection failed")
			}
			families := waitForGauge(t, h, "hikaricp_connections_active", 0)
			for name, want := range map[string]float64{"hikaricp_connections_active": 0, "hikaricp_connections_pending": 0,
				"hikaricp_connections_timeout_total": 0} {
				if got := value(families[name]); got != want {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
		})
	}
}

// TestDBTakesAWorker checks that /api/db runs inside the WORKERS pool: with
// one worker held by a database request, a light request waits.
func TestDBTakesAWorker(t *testing.T) {
	fake := &fakeDB{gate: make(chan struct{}), slept: make(chan string, 1)}
	h := dbHandler(t, fake, dbPostgres, 10, time.Second, WithWorkers(1))
	first := holdConnection(t, h, fake)
	light := serveAsync(context.Background(), h, "/api/light")
	select {
	case rec := <-light:
		t.Fatalf("/api/light answered %d while the only worker was busy", rec.Code)
	case <-time.After(200 * time.Millisecond):
	}
	close(fake.gate)
	if a, b := (<-first).Code, (<-light).Code; a != http.StatusOK || b != http.StatusOK {
		t.Errorf("statuses %d and %d, want 200 twice", a, b)
	}
}

// TestPoolMetrics checks that the pool's series, HikariCP's names with
// pool="threadbench", are exposed with a database and not without one.
func TestPoolMetrics(t *testing.T) {
	families := scrape(t, dbHandler(t, &fakeDB{}, dbPostgres, 7, time.Second))
	for _, tt := range []struct {
		name string
		typ  dto.MetricType
		want float64 // -1: any
	}{
		{"hikaricp_connections_active", dto.MetricType_GAUGE, 0},
		{"hikaricp_connections_idle", dto.MetricType_GAUGE, 0},
		{"hikaricp_connections_pending", dto.MetricType_GAUGE, 0},
		{"hikaricp_connections", dto.MetricType_GAUGE, 0},
		{"hikaricp_connections_max", dto.MetricType_GAUGE, 7},
		{"hikaricp_connections_min", dto.MetricType_GAUGE, 0},
		{"hikaricp_connections_timeout_total", dto.MetricType_COUNTER, 0},
		{"hikaricp_connections_acquire_seconds", dto.MetricType_SUMMARY, -1},
		{"hikaricp_connections_acquire_seconds_max", dto.MetricType_GAUGE, 0},
		{"hikaricp_connections_usage_seconds", dto.MetricType_SUMMARY, -1},
		{"hikaricp_connections_usage_seconds_max", dto.MetricType_GAUGE, 0},
	} {
		f := families[tt.name]
		if f == nil || f.GetType() != tt.typ || len(f.GetMetric()) != 1 {
			t.Errorf("%s: family %v, want one %v series", tt.name, f, tt.typ)
			continue
		}
		labels := f.GetMetric()[0].GetLabel()
		if len(labels) != 1 || labels[0].GetName() != "pool" || labels[0].GetValue() != "threadbench" {
			t.Errorf("%s: labels %v, want pool=\"threadbench\"", tt.name, labels)
		}
		if got := value(f); tt.want >= 0 && got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, got, tt.want)
		}
	}
	for name := range scrape(t, NewHandler("go")) {
		if strings.HasPrefix(name, "hikaricp_") {
			t.Errorf("%s exposed without a database", name)
		}
	}
}

func TestWindowMax(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(1_000_000, 0).Add(time.Duration(s) * time.Second) }
	const ms = time.Millisecond
	type event struct {
		at     int           // seconds
		record time.Duration // 0: read
		want   time.Duration // what a read returns
	}
	for _, tt := range []struct {
		name   string
		events []event
	}{
		{"nothing recorded", []event{{0, 0, 0}, {100, 0, 0}}},
		{"the largest value within the window", []event{{0, 3 * ms, 0}, {1, 5 * ms, 0}, {2, 4 * ms, 0}, {3, 0, 5 * ms}}},
		// Each buffer holds every value; one is emptied every 20 s.
		{"kept for three steps", []event{{0, 7 * ms, 0}, {39, 0, 7 * ms}, {59, 0, 7 * ms}, {60, 0, 0}}},
		{"recorded late in a step", []event{{0, 0, 0}, {19, 7 * ms, 0}, {59, 0, 7 * ms}, {60, 0, 0}}},
		{"a later, smaller value outlives it", []event{{0, 9 * ms, 0}, {30, 2 * ms, 0}, {59, 0, 9 * ms}, {61, 0, 2 * ms}, {79, 0, 2 * ms}, {80, 0, 0}}},
		// A whole window without a read or record empties every buffer.
		{"idle for a whole window", []event{{0, 9 * ms, 0}, {1000, 0, 0}, {1001, 4 * ms, 0}, {1002, 0, 4 * ms}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var w windowMax
			for _, e := range tt.events {
				if e.record != 0 {
					w.record(at(e.at), e.record)
					continue
				}
				if got := w.read(at(e.at)); got != e.want {
					t.Errorf("read at %vs = %v, want %v", e.at, got, e.want)
				}
			}
		})
	}
}

// scrape returns h's metric families.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, MetricsPath, nil))
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse exposition: %v", err)
	}
	return families
}

// waitForGauge scrapes h until the named family reads want, for up to 5 s,
// and returns the last scrape.
func waitForGauge(t *testing.T, h http.Handler, name string, want float64) map[string]*dto.MetricFamily {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		families := scrape(t, h)
		if value(families[name]) == want || time.Now().After(deadline) {
			return families
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// value returns the first series of a gauge or counter family, -1 when
// there is none.
func value(f *dto.MetricFamily) float64 {
	if f == nil || len(f.GetMetric()) == 0 {
		return -1
	}
	m := f.GetMetric()[0]
	if m.GetCounter() != nil {
		return m.GetCounter().GetValue()
	}
	return m.GetGauge().GetValue()
}

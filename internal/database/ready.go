package database

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
)

// Readiness polling: how often, and how long one try may take.
const (
	readyInterval = 100 * time.Millisecond
	probeTimeout  = 2 * time.Second
)

// ready waits for the server to answer as bench.DatabaseUser, then seeds
// its table, runs the init script and reads the settings it reports.
func (s *Server) ready(ctx context.Context, timeout time.Duration, init string) error {
	db, err := sql.Open(s.flavor.driver, s.conn.DSN())
	if err != nil {
		return fmt.Errorf("database %s: %w", s.flavor.kind, err)
	}
	defer db.Close()
	if err := s.waitAnswer(ctx, db, timeout); err != nil {
		return err
	}
	// One session for all: an init script's SET holds for what follows.
	conn, err := db.Conn(ctx)
	if err != nil {
		return s.failure(ctx, "answered once, then let no session in (%v)", err)
	}
	defer conn.Close()
	if err := s.seed(ctx, conn); err != nil {
		return err
	}
	if err := s.runInit(ctx, conn, init); err != nil {
		return err
	}
	return s.readSettings(ctx, conn)
}

// waitAnswer polls the server with a query until it answers, its
// container exits, the timeout passes or ctx is done, and records the
// startup time.
func (s *Server) waitAnswer(ctx context.Context, db *sql.DB, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	ticker := time.NewTicker(readyInterval)
	defer ticker.Stop()
	for {
		probeErr := probe(ctx, db)
		if probeErr == nil {
			s.startup = s.sinceStarted(ctx)
			return nil
		}
		if err := s.checkStarting(ctx, deadline, timeout, probeErr); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for database %s: %w", s.flavor.kind, ctx.Err())
		case <-ticker.C:
		}
	}
}

// probe returns nil when the server answers SELECT 1.
func probe(ctx context.Context, db *sql.DB) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var one int
	return db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// checkStarting returns the error of a server that is not starting any
// more: its container exited, or the deadline passed.
func (s *Server) checkStarting(ctx context.Context, deadline time.Time, timeout time.Duration, probeErr error) error {
	st, err := s.inspect(ctx)
	switch {
	case err != nil:
		return err
	case !st.Running:
		return s.failure(ctx, "exited before it answered (exit code %d, OOM-killed %t)", st.ExitCode, st.OOMKilled)
	case time.Now().After(deadline):
		return s.failure(ctx, "did not answer within %s%s (last try: %v)", timeout, s.cpuGot(ctx, timeout), probeErr)
	}
	return nil
}

// cpuGot says how much CPU time the server's container had over the wait,
// against what its limit allows, or "" when the engine does not say: a
// server other work starved is told from one that hung.
func (s *Server) cpuGot(ctx context.Context, waited time.Duration) string {
	res, err := s.docker.ContainerStats(ctx, s.id, client.ContainerStatsOptions{})
	if err != nil {
		return ""
	}
	defer res.Body.Close()
	var st container.StatsResponse
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil || st.CPUStats.CPUUsage.TotalUsage == 0 {
		return ""
	}
	used := float64(st.CPUStats.CPUUsage.TotalUsage) / 1e9
	limit := s.req.Limits.CPUs
	if limit <= 0 {
		limit = float64(max(st.CPUStats.OnlineCPUs, 1))
	}
	allowed := waited.Seconds() * limit
	return fmt.Sprintf(", in which it had %.2f s of CPU time, %.1f %% of the %.0f s its %g CPU(s) allow", used, 100*used/allowed, allowed, limit)
}

// sinceStarted returns the time since the engine started the container,
// or since the start call returned when the engine does not say.
func (s *Server) sinceStarted(ctx context.Context) time.Duration {
	if st, err := s.inspect(ctx); err == nil {
		if started, err := time.Parse(time.RFC3339Nano, st.StartedAt); err == nil {
			return time.Since(started)
		}
	}
	return time.Since(s.started)
}

// failure returns an EUNAVAILABLE error about the server that quotes the
// end of its log, which usually says why.
func (s *Server) failure(ctx context.Context, format string, args ...any) error {
	msg := fmt.Sprintf("database %s (%s) ", s.flavor.kind, s.flavor.title) + fmt.Sprintf(format, args...)
	logs, err := s.logs(context.WithoutCancel(ctx), errorLogLines)
	switch {
	case err != nil:
		msg += fmt.Sprintf("; its log could not be read: %v", err)
	case strings.TrimSpace(logs) == "":
		msg += "; its log is empty"
	default:
		msg += "; its log ends:\n" + strings.TrimRight(logs, "\n")
	}
	return bench.Errorf(bench.EUNAVAILABLE, "%s", msg)
}

// seedStatements make the table the contract's GET /api/db reads: ids 1 to
// bench.DatabaseRows, named "item-<id>", valued id*7 % 1000.
func seedStatements() []string {
	var insert strings.Builder
	fmt.Fprintf(&insert, "INSERT INTO %s (id, name, value) VALUES ", bench.DatabaseTable)
	for id := 1; id <= bench.DatabaseRows; id++ {
		if id > 1 {
			insert.WriteString(", ")
		}
		fmt.Fprintf(&insert, "(%d, 'item-%d', %d)", id, id, id*7%1000)
	}
	return []string{
		fmt.Sprintf("CREATE TABLE %s (id integer PRIMARY KEY, name varchar(64), value integer)", bench.DatabaseTable),
		insert.String(),
	}
}

// seed makes the seeded table.
func (s *Server) seed(ctx context.Context, conn *sql.Conn) error {
	for _, stmt := range seedStatements() {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return s.failure(ctx, "could not seed %s (%v)", bench.DatabaseTable, err)
		}
	}
	return nil
}

// runInit runs an init script statement by statement. A statement that
// fails is an EINVALID error about database.init, with its line and the
// server's error.
func (s *Server) runInit(ctx context.Context, conn *sql.Conn, script string) error {
	for _, stmt := range splitStatements(script, s.flavor.dialect) {
		if _, err := conn.ExecContext(ctx, stmt.SQL); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("database %s: init script: %w", s.flavor.kind, ctx.Err())
			}
			return bench.FieldErrorf("database.init", "the statement on line %d (%s) failed on %s: %v",
				stmt.Line, excerpt(stmt.SQL), s.flavor.title, err)
		}
	}
	return nil
}

// excerpt is a statement's start, on one line, for a message.
func excerpt(stmt string) string {
	const most = 60
	line := []rune(strings.Join(strings.Fields(stmt), " "))
	if len(line) > most {
		return string(line[:most]) + "..."
	}
	return string(line)
}

// readSettings asks the server its version and max_connections, and fills
// the server's settings in.
func (s *Server) readSettings(ctx context.Context, conn *sql.Conn) error {
	var version, maxConnections string
	if err := conn.QueryRowContext(ctx, "SELECT version()").Scan(&version); err != nil {
		return s.failure(ctx, "does not say its version (%v)", err)
	}
	if err := conn.QueryRowContext(ctx, s.flavor.maxConnections).Scan(&maxConnections); err != nil {
		return s.failure(ctx, "does not say its max_connections (%v)", err)
	}
	s.describe(version, maxConnections)
	return nil
}

//go:build integration

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
)

// dbProfile is 20 clients for 6 s: with a pool of 5 connections and a
// query that sleeps 20 ms in the database, the pool is the bound (at most
// 5 ÷ 0.020 s = 250 req/s) and about 15 requests wait for a connection.
const dbProfile = "model: closed\nstages:\n  - {name: c20, duration: 6s, concurrency: 20}\n"

// A run with a PostgreSQL server beside the Go target: it reads the seeded table through pools of 5, the server's figures and each
// pool's are kept per stage, the throughput stays under the bound the pool
// sets (connections ÷ query time), and nothing is left running. (How near
// the bound a target gets depends on the machine's load: a test of it
// measures, alone.)
func TestDatabasePostgresBesideTargets(t *testing.T) {
	sideBySide(t)
	// The Java target's /api/db is read against a real PostgreSQL by its
	// JUnit tests; here the Go target alone, so that no JVM slot is held.
	run := runWithDatabase(t, "postgres", "go")
	if run.Database == nil || run.Database.Status != bench.TargetSucceeded || !strings.Contains(run.Database.Settings["database.version"], "PostgreSQL 15") {
		t.Fatalf("database %+v", run.Database)
	}
	for _, tr := range run.Targets {
		checkDatabasePoolBound(t, tr)
		if env := tr.Settings["database"]; !strings.HasPrefix(env, "postgres 127.0.0.1:") {
			t.Errorf("%s's settings say database %q", tr.Key(), env)
		}
	}
	if left := runContainers(t, run.ID); len(left) > 0 {
		t.Errorf("containers left after the run: %v", left)
	}
}

// The same against MariaDB, on the Go target alone.
func TestDatabaseMySQLBesideTargets(t *testing.T) {
	sideBySide(t)
	run := runWithDatabase(t, "mysql", "go")
	if run.Database == nil || !strings.Contains(strings.ToLower(run.Database.Settings["database.version"]), "mariadb") {
		t.Fatalf("database %+v", run.Database)
	}
	checkDatabasePoolBound(t, run.Targets[0])
	if left := runContainers(t, run.ID); len(left) > 0 {
		t.Errorf("containers left after the run: %v", left)
	}
}

// runWithDatabase runs targets on /api/db?delay=20 against a database of
// kind with pools of 5, and returns the stored run, which succeeded.
func runWithDatabase(t *testing.T, kind, targetList string) *bench.Run {
	t.Helper()
	db := t.TempDir() + "/history.db"
	profile := writeFile(t, "db.yaml", dbProfile)
	code, stdout, stderr := runCLI(t, nil, "--db", db, "run", "-q", "-o", "json", "--targets", targetList,
		"--database", kind, "--db-pool", "5", "--profile", profile, "--endpoint", "db", "--param", "delay=20", "--warmup", "2s")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	return run
}

// checkDatabasePoolBound holds a target's figures to what the pool allows
// whatever the machine's load (these tests run beside others): no error,
// throughput at most 5 connections ÷ 20 ms, the pool seen at its size
// with each connection held at least the query's 20 ms, and the database
// seeing the target's connections and transactions.
func checkDatabasePoolBound(t *testing.T, tr bench.TargetResult) {
	t.Helper()
	total := tr.Total
	if total == nil || total.Requests == 0 || total.Successes != total.Requests {
		t.Fatalf("%s: %+v, want every request answered", tr.Key(), total)
	}
	const bound = 5 / 0.020
	if tput := total.Throughput; tput > bound*1.01 || tput <= 0 {
		t.Errorf("%s served %.1f req/s; a pool of 5 on a 20 ms query allows at most %.0f", tr.Key(), tput, bound)
	}
	pools := analysis.PoolStages(&tr)
	if len(pools) != 1 || pools[0].Size != 5 || pools[0].Active.Peak != 5 || pools[0].HeldMs < 20 {
		t.Errorf("%s's pool per stage %+v: want a pool of 5 seen full, each connection held at least the query's 20 ms", tr.Key(), pools)
	}
	var stage *bench.DatabaseStage
	for i := range tr.Database {
		if !tr.Database[i].Warmup {
			stage = &tr.Database[i]
		}
	}
	if stage == nil || stage.Samples < 3 || stage.TransactionsPerSec <= 0 || stage.Connections[bench.DatabaseActive].Peak < 1 {
		b, _ := json.Marshal(tr.Database)
		t.Errorf("%s's database figures %s: want its connections active and its queries counted", tr.Key(), b)
	}
}

// Bad database input is refused before anything starts, naming the field;
// an init script that fails fails the run naming its line, and leaves
// nothing running.
func TestDatabaseBadInput(t *testing.T) {
	sideBySide(t)
	db := t.TempDir() + "/history.db"
	for _, tt := range []struct {
		name string
		args []string
		says string
	}{
		{"unknown kind", []string{"--database", "oracle"}, "database.kind"},
		{"pool without a database", []string{"--db-pool", "5"}, "need --database"},
		{"pool too large", []string{"--database", "postgres", "--db-pool", "5000"}, "database.pool"},
		{"missing init file", []string{"--database", "postgres", "--db-init", "/nonexistent/schema.sql"}, "database.init"},
		{"db endpoint without a database", []string{"--endpoint", "db"}, "reads a database"},
	} {
		args := append([]string{"--db", db, "run", "-q", "--targets", "go", "--profile", "smoke"}, tt.args...)
		code, _, stderr := runCLI(t, nil, args...)
		if code != exitBadInput || !strings.Contains(stderr, tt.says) {
			t.Errorf("%s: exit %d, stderr %q; want %d naming %q", tt.name, code, stderr, exitBadInput, tt.says)
		}
	}
	init := writeFile(t, "schema.sql", "CREATE TABLE orders (id int primary key);\n-- a comment\nINSERT INTO orderz VALUES (1);\n")
	code, stdout, stderr := runCLI(t, nil, "--db", db, "run", "-q", "-o", "json", "--targets", "go", "--profile", "smoke",
		"--database", "postgres", "--db-init", init, "--endpoint", "db")
	var run bench.Run
	if err := json.Unmarshal([]byte(stdout), &run); err != nil {
		t.Fatalf("exit %d, stdout is not a run (%v); stderr:\n%s", code, err, stderr)
	}
	if code != exitFailure || run.Status != bench.RunFailed || !strings.Contains(run.Error, "line 3") || !strings.Contains(run.Error, "orderz") {
		t.Errorf("exit %d, run %s %q; want failed naming line 3 and the missing table", code, run.Status, run.Error)
	}
	if run.Targets[0].Status != bench.TargetSkipped {
		t.Errorf("target %s, want skipped: nothing starts after the database failed", run.Targets[0].Status)
	}
	if left := runContainers(t, run.ID); len(left) > 0 {
		t.Errorf("containers left: %v", left)
	}
}

//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
)

// dbProfile is 20 clients for 6 s: with a pool of 5 connections and a
// query that sleeps 20 ms in the database, the pool is the bound (at most
// 5 ÷ 0.020 s = 250 req/s) and about 15 requests wait for a connection.
const dbProfile = "model: closed\nstages:\n  - {name: c20, duration: 6s, concurrency: 20}\n"

// The db-pool experiment's pool of 10, on the Go target: a PostgreSQL
// server beside it, read through its pool at 50, 200 and 400 clients; the
// server's figures and the pool's are kept per stage, the throughput stays
// under the bound the pool sets (connections ÷ query time), at 400 clients
// the requests wait for the pool, the sheet says so, and nothing is left
// running. (How near the bound a target gets depends on the machine's
// load: these tests run beside others.)
func TestDatabasePostgresExperiment(t *testing.T) {
	sideBySide(t)
	// The Java target's /api/db is read against a real PostgreSQL by its
	// JUnit tests; here the Go target alone, so that no JVM slot is held.
	db := t.TempDir() + "/history.db"
	code, stdout, stderr := runCLI(t, nil, "--db", db, "run", "-q", "-o", "json", "--experiment", "db-pool", "--part", "pool-10",
		"--case", "go", "--scale", "0.3")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	if run.Database == nil || run.Database.Status != bench.TargetSucceeded || run.Database.Pool != 10 || !strings.Contains(run.Database.Settings["database.version"], "PostgreSQL 15") {
		t.Fatalf("database %+v", run.Database)
	}
	tr := run.Targets[0]
	checkDatabasePoolBound(t, tr, 10, 3)
	if env := tr.Settings["database"]; !strings.HasPrefix(env, "postgres 127.0.0.1:") {
		t.Errorf("%s's settings say database %q", tr.Key(), env)
	}
	pools := analysis.PoolStages(&tr)
	if last := pools[len(pools)-1]; last.Where() != analysis.WaitPool || last.DatabaseMs <= 0 {
		t.Errorf("at 400 clients the requests were at %s (%+v), want waiting for the pool, and their time in the database", last.Where(), last)
	}
	sheet, ok := builtin.SheetOf(run)
	var text strings.Builder
	for _, p := range sheet.Parts {
		text.WriteString(p.Line + "\n")
		if p.Table != nil {
			fmt.Fprintf(&text, "%s\n%v\n", p.Table.Title, p.Table.Rows)
		}
	}
	for _, want := range []string{"the pool allows 500.0 req/s", "(500.0, ", "pool: pool ", "a connection held per request"} {
		if !ok || !strings.Contains(text.String(), want) {
			t.Errorf("the sheet lacks %q:\n%s", want, text.String())
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
	checkDatabasePoolBound(t, run.Targets[0], 5, 1)
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

// checkDatabasePoolBound holds a target's figures to what its pool of size
// connections allows whatever the machine's load (these tests run beside
// others): no error, throughput at most size ÷ 20 ms, in each of its
// stages the pool seen at its size with each connection held at least the
// query's 20 ms, and the database seeing the target's connections and
// transactions.
func checkDatabasePoolBound(t *testing.T, tr bench.TargetResult, size float64, stages int) {
	t.Helper()
	total := tr.Total
	if total == nil || total.Requests == 0 || total.Successes != total.Requests {
		t.Fatalf("%s: %+v, want every request answered", tr.Key(), total)
	}
	bound := size / 0.020
	if tput := total.Throughput; tput > bound*1.01 || tput <= 0 {
		t.Errorf("%s served %.1f req/s; a pool of %.0f on a 20 ms query allows at most %.0f", tr.Key(), tput, size, bound)
	}
	pools := analysis.PoolStages(&tr)
	if len(pools) != stages {
		t.Fatalf("%s's pool per stage %+v: want %d stages", tr.Key(), pools, stages)
	}
	for _, p := range pools {
		if p.Size != size || p.Active.Peak != size || p.HeldMs < 20 {
			t.Errorf("%s's pool in %s %+v: want a pool of %.0f seen full, each connection held at least the query's 20 ms", tr.Key(), p.Label, p, size)
		}
	}
	var stage *bench.DatabaseStage
	for i := range tr.Database {
		if !tr.Database[i].Warmup {
			stage = &tr.Database[i]
		}
	}
	if stage == nil || stage.Samples < 2 || stage.TransactionsPerSec <= 0 || stage.Connections[bench.DatabaseActive].Peak < 1 {
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

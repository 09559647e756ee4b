package runner_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
	"github.com/threadbench/threadbench/internal/runner"
)

// fakeDatabases is a database runtime whose one server answers on a
// made-up port; dies, when set, makes its server report it exited.
type fakeDatabases struct {
	mu       sync.Mutex
	startErr error
	dies     bool
	requests []bench.DatabaseRequest
	server   *fakeDatabase
}

var _ bench.DatabaseRuntime = (*fakeDatabases)(nil)

func (f *fakeDatabases) StartDatabase(_ context.Context, req bench.DatabaseRequest) (bench.DatabaseServer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req)
	if f.startErr != nil {
		return nil, f.startErr
	}
	f.server = &fakeDatabase{kind: req.Kind, dies: f.dies}
	return f.server, nil
}

type fakeDatabase struct {
	kind    string
	dies    bool
	stopped bool
	records int
}

var _ bench.DatabaseServer = (*fakeDatabase)(nil)

func (d *fakeDatabase) Conn() bench.DatabaseConn {
	return bench.DatabaseConn{Kind: d.kind, Host: "127.0.0.1", Port: 45432, Name: bench.DatabaseName, User: bench.DatabaseUser, Password: bench.DatabasePassword}
}
func (d *fakeDatabase) Image() bench.ImageInfo {
	return bench.ImageInfo{Ref: "threadbench/postgres:test"}
}
func (d *fakeDatabase) ContainerID() string    { return "db1" }
func (d *fakeDatabase) Startup() time.Duration { return time.Second }
func (d *fakeDatabase) Settings() map[string]string {
	return map[string]string{"database.version": "PostgreSQL 15"}
}
func (d *fakeDatabase) Stop(context.Context) error { d.stopped = true; return nil }
func (d *fakeDatabase) Logs(context.Context, int) (string, error) {
	return "LOG: starting\nFATAL: terminating connection due to administrator command\n", nil
}
func (d *fakeDatabase) State(context.Context) (bench.ContainerState, error) {
	if d.dies {
		return bench.ContainerState{ExitCode: 137}, nil
	}
	return bench.ContainerState{Running: true}, nil
}
func (d *fakeDatabase) Record(context.Context) bench.DatabaseRecording {
	d.records++
	return &fakeDatabaseRecording{}
}

type fakeDatabaseRecording struct{ t0 time.Time }

func (r *fakeDatabaseRecording) SetT0(t0 time.Time) { r.t0 = t0 }
func (r *fakeDatabaseRecording) Stop(_ context.Context, _ *bench.StageResult, stages []bench.StageResult) bench.DatabaseRecordingResult {
	var out bench.DatabaseRecordingResult
	for _, s := range stages {
		out.Stages = append(out.Stages, bench.DatabaseStage{Stage: s.Index, TransactionsPerSec: 10, Samples: 1})
	}
	return out
}

func newDatabaseRunner(t *testing.T, rt *fakeRuntime, st bench.RunStore, dbs *fakeDatabases) *runner.Runner {
	return runner.New(runner.Config{Targets: rt, Store: st, Attacker: load.NewEngine(), Databases: dbs,
		LockPath: t.TempDir() + "/attack.lock", CPUs: 1})
}

// The database starts before every target, each target gets its
// connection settings, its figures are kept per target, and it is
// removed after the last.
func TestExecute_Database(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	spec := shortSpec(t, "go", "java-virtual")
	spec.Database = &bench.Database{Kind: bench.DatabasePostgres, Pool: 25, Init: "CREATE TABLE t (id int);"}
	run := createRun(t, st, spec)
	rt, dbs := &fakeRuntime{}, &fakeDatabases{}
	if err := newDatabaseRunner(t, rt, st, dbs).Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	if run.Status != bench.RunSucceeded || run.Database == nil || run.Database.Status != bench.TargetSucceeded {
		t.Fatalf("run %s %q, database %+v", run.Status, run.Error, run.Database)
	}
	if len(dbs.requests) != 1 || dbs.requests[0].Init != spec.Database.Init || dbs.requests[0].Kind != "postgres" {
		t.Errorf("database requests %+v", dbs.requests)
	}
	if got, want := run.Database.Address, "127.0.0.1:45432"; got != want || run.Database.Pool != 25 {
		t.Errorf("database at %s pool %d, want %s pool 25", got, run.Database.Pool, want)
	}
	for i, req := range rt.requests {
		env := req.Database
		if env[bench.EnvDBPort] != "45432" || env[bench.EnvDBPool] != "25" || env["SPRING_DATASOURCE_URL"] != "jdbc:postgresql://127.0.0.1:45432/threadbench" {
			t.Errorf("target %d started with database env %v", i, env)
		}
	}
	for _, tr := range run.Targets {
		if len(tr.Database) == 0 || tr.Database[0].TransactionsPerSec != 10 {
			t.Errorf("%s kept database figures %+v", tr.Key(), tr.Database)
		}
	}
	if !dbs.server.stopped || dbs.server.records != 2 {
		t.Errorf("database stopped %v, recorded %d times; want stopped, 2", dbs.server.stopped, dbs.server.records)
	}
}

// A database that does not start fails the run before any target starts.
func TestExecute_DatabaseFails(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	spec := shortSpec(t, "go")
	spec.Database = &bench.Database{Kind: bench.DatabaseMySQL}
	run := createRun(t, st, spec)
	rt := &fakeRuntime{}
	dbs := &fakeDatabases{startErr: bench.Errorf(bench.EUNAVAILABLE, "mysql did not answer in 60s; last log lines: [ERROR] Aborting")}
	if err := newDatabaseRunner(t, rt, st, dbs).Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	if run.Status != bench.RunFailed || !strings.Contains(run.Error, "database server mysql") || !strings.Contains(run.Error, "Aborting") {
		t.Errorf("run %s %q; want failed naming the database and quoting its log", run.Status, run.Error)
	}
	if len(rt.started) != 0 || run.Targets[0].Status != bench.TargetSkipped {
		t.Errorf("started %v, target %s; want nothing started, skipped", rt.started, run.Targets[0].Status)
	}
}

// A database that dies during an attack fails that target and the run,
// quoting its log, and the targets after it are not attacked.
func TestExecute_DatabaseDies(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	spec := shortSpec(t, "go", "java-virtual")
	spec.Database = &bench.Database{Kind: bench.DatabasePostgres}
	run := createRun(t, st, spec)
	rt, dbs := &fakeRuntime{}, &fakeDatabases{dies: true}
	if err := newDatabaseRunner(t, rt, st, dbs).Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	if run.Status != bench.RunFailed || !strings.Contains(run.Error, "database server exited with code 137") {
		t.Errorf("run %s %q; want failed on the dead database", run.Status, run.Error)
	}
	if run.Targets[0].Status != bench.TargetFailed || !strings.Contains(run.Targets[0].Error, "administrator command") {
		t.Errorf("first target %s %q", run.Targets[0].Status, run.Targets[0].Error)
	}
	if run.Targets[1].Status != bench.TargetSkipped || !dbs.server.stopped {
		t.Errorf("second target %s, database stopped %v", run.Targets[1].Status, dbs.server.stopped)
	}
}

// A runner without a database runtime refuses a spec that asks for one.
func TestExecute_DatabaseWithoutRuntime(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	spec := shortSpec(t, "go")
	spec.Database = &bench.Database{Kind: bench.DatabasePostgres}
	run := createRun(t, st, spec)
	if err := newRunner(t, &fakeRuntime{}, st).Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	if run.Status != bench.RunFailed || !strings.Contains(run.Error, "starts no database") {
		t.Errorf("run %s %q", run.Status, run.Error)
	}
}

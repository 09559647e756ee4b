//go:build integration

package database_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/database"
	"github.com/threadbench/threadbench/internal/targets"
)

// The tests start each server kind three times (a healthy one shared by
// its assertions, one whose init fails, one that exits at once), all at
// once: the engine's assembly of an image is the only thing they wait
// for each other for.

var (
	engines *targets.Engines
	// history is the io.threadbench.history of this binary's containers.
	history = fmt.Sprintf("database-test-%08x", rand.Uint32())
)

func TestMain(m *testing.M) {
	local, err := targets.NewRuntime(targets.RuntimeOptions{History: history})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	engines, err = targets.NewEngines(local)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	engines.Close()
	os.Exit(code)
}

// kinds are the servers every test starts, with what tells them apart.
var kinds = []struct {
	kind   string
	driver string
	sleep  string // holds a session active for 4 s
	wait   string // what the sleeping sessions wait for
	timed  bool   // the server times each statement (db_executing)
	// init is a script that needs splitting the kind's way; check says
	// what it made, through the server's DSN.
	init, check, want string
}{
	{
		kind: bench.DatabasePostgres, driver: "pgx", sleep: "SELECT pg_sleep(4)", wait: "Timeout", timed: true,
		init:  "-- a function whose body holds a ';'\nCREATE FUNCTION twice(i integer) RETURNS integer\nAS $$ SELECT i * 2; $$ LANGUAGE sql;\nSELECT twice(1);",
		check: "SELECT twice(21)", want: "42",
	},
	{
		kind: bench.DatabaseMySQL, driver: "mysql", sleep: "SELECT SLEEP(4)", wait: "User sleep",
		init:  "# a string holding a ';'\nCREATE TABLE notes (id integer PRIMARY KEY, body text);\nINSERT INTO notes VALUES (1, 'semi;colon');",
		check: "SELECT body FROM notes WHERE id = 1", want: "semi;colon",
	},
}

func TestStartDatabase(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			rt := database.NewRuntime(engines, database.Options{History: history, SampleInterval: 250 * time.Millisecond})
			runID := newRunID()
			req := bench.DatabaseRequest{RunID: runID, Kind: k.kind, Init: k.init, Limits: bench.Limits{CPUs: 1, MemoryMiB: 512}, CPUSet: "0"}
			start := time.Now()
			srv, err := rt.StartDatabase(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Stop(ctx)
			t.Logf("%s ready in %s (container start to answer: %s), image %s (cached %t)", k.kind,
				time.Since(start).Round(time.Millisecond), srv.Startup().Round(time.Millisecond), srv.Image().Ref, srv.Image().Cached)
			db := open(t, k.driver, srv.Conn().DSN())

			t.Run("seeded", func(t *testing.T) { checkSeeded(t, db) })
			t.Run("init", func(t *testing.T) {
				if got := queryString(t, db, k.check); got != k.want {
					t.Errorf("%s = %q, want %q", k.check, got, k.want)
				}
			})
			t.Run("settings", func(t *testing.T) { checkSettings(t, srv, req) })
			t.Run("container", func(t *testing.T) { checkContainer(t, srv) })
			t.Run("image", func(t *testing.T) { checkImage(t, srv, k.kind) })
			t.Run("recording", func(t *testing.T) { checkRecording(t, srv, db, k.sleep, k.wait, k.timed) })
			t.Run("stop leaves nothing", func(t *testing.T) {
				db.Close()
				if err := srv.Stop(ctx); err != nil {
					t.Fatal(err)
				}
				if n := leftovers(t, runID); n != 0 {
					t.Errorf("%d containers of run %s left after Stop", n, runID)
				}
				if err := srv.Stop(ctx); err != nil {
					t.Errorf("second Stop: %v", err)
				}
			})
		})
	}
}

// checkSeeded checks the seeded table through the server's DSN.
func checkSeeded(t *testing.T, db *sql.DB) {
	if got := queryString(t, db, "SELECT count(*) FROM "+bench.DatabaseTable); got != "1000" {
		t.Errorf("count(*) = %s, want 1000", got)
	}
	if got := queryString(t, db, "SELECT name FROM "+bench.DatabaseTable+" WHERE id = 3"); got != "item-3" {
		t.Errorf("name of id 3 = %q, want item-3", got)
	}
	if got := queryString(t, db, "SELECT value FROM "+bench.DatabaseTable+" WHERE id = 999"); got != "993" {
		t.Errorf("value of id 999 = %s, want 993 (999*7 %% 1000)", got)
	}
}

// checkSettings checks what the server says of itself.
func checkSettings(t *testing.T, srv bench.DatabaseServer, req bench.DatabaseRequest) {
	s := srv.Settings()
	want := map[string]string{
		database.SettingKind: req.Kind, database.SettingMaxConnections: "500", database.SettingImage: srv.Image().Ref,
		database.SettingPort: fmt.Sprint(srv.Conn().Port), database.SettingCPUs: "1", database.SettingMemoryMiB: "512",
		database.SettingCPUSet: "0",
	}
	for k, v := range want {
		if s[k] != v {
			t.Errorf("setting %s = %q, want %q", k, s[k], v)
		}
	}
	version := map[string]string{bench.DatabasePostgres: "PostgreSQL 15.", bench.DatabaseMySQL: "10.11."}[req.Kind]
	if !strings.Contains(s[database.SettingVersion], version) {
		t.Errorf("setting %s = %q, want it to hold %q", database.SettingVersion, s[database.SettingVersion], version)
	}
	if c := srv.Conn(); c.Host != "127.0.0.1" || c.User != bench.DatabaseUser || c.Name != bench.DatabaseName {
		t.Errorf("Conn() = %+v, want 127.0.0.1, user and database %s", c, bench.DatabaseName)
	}
}

// checkContainer checks the container's limits and labels: those the
// daemon's Cleanup finds it by.
func checkContainer(t *testing.T, srv bench.DatabaseServer) {
	ctx := context.Background()
	res, err := engines.Local().Client().ContainerInspect(ctx, srv.ContainerID(), client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hc := res.Container.HostConfig
	if hc.NanoCPUs != 1e9 || hc.CpusetCpus != "0" || hc.Memory != 512<<20 || hc.MemorySwap != hc.Memory || hc.NetworkMode != "host" {
		t.Errorf("host config: NanoCPUs %d, CpusetCpus %q, Memory %d, MemorySwap %d, NetworkMode %s; want 1 CPU on 0, 512 MiB without swap, host",
			hc.NanoCPUs, hc.CpusetCpus, hc.Memory, hc.MemorySwap, hc.NetworkMode)
	}
	list, err := engines.Local().Client().ContainerList(ctx, client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("label", targets.LabelManaged+"=true", targets.LabelHistory+"="+history)})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range list.Items {
		found = found || c.ID == srv.ContainerID()
	}
	if !found {
		t.Errorf("the labels Cleanup removes by (%s=true, %s=%s) do not find the container; it has %v",
			targets.LabelManaged, targets.LabelHistory, history, res.Container.Config.Labels)
	}
	if name := strings.TrimPrefix(res.Container.Name, "/"); !strings.HasPrefix(name, "threadbench-database-") {
		t.Errorf("container name %q, want threadbench-database-<kind>-<port>-<random>", name)
	}
}

// checkImage checks the image's labels say where the server came from.
func checkImage(t *testing.T, srv bench.DatabaseServer, kind string) {
	img, err := engines.Local().Client().ImageInspect(context.Background(), srv.Image().Ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("image %s: %.1f MB", srv.Image().Ref, float64(img.Size)/1e6)
	pkg := map[string]string{bench.DatabasePostgres: "debian:postgresql-15=", bench.DatabaseMySQL: "debian:mariadb-server="}[kind]
	if got := img.Config.Labels[database.ImageLabelSource]; !strings.HasPrefix(got, pkg) || got != srv.Settings()[database.SettingSource] {
		t.Errorf("label %s = %q, want %s<version> as the settings say (%q)", database.ImageLabelSource, got, pkg, srv.Settings()[database.SettingSource])
	}
	if got := img.Config.Labels[database.ImageLabelKind]; got != kind {
		t.Errorf("label %s = %q, want %q", database.ImageLabelKind, got, kind)
	}
}

// checkRecording holds five sessions in a 4 s sleep (2 s was too short for
// a sample to land in on a machine the suite saturates: MariaDB answered
// none of its process-list reads in time then) and one idle in a
// transaction that locked a row, then a burst of reads, and checks what
// the recording saw of them. A recording some of whose samples failed is
// made once more, and the second is judged: a clean clone's side phase
// left MariaDB 10.9 s to start (0.2 s alone) and three of its samples in
// the sleep past their deadline.
func checkRecording(t *testing.T, srv bench.DatabaseServer, db *sql.DB, sleep, wait string, timed bool) {
	res := recordLoad(t, srv, db, sleep)
	if res.Failures > 0 {
		t.Logf("%d samples failed (the last with %s): recorded again", res.Failures, res.LastError)
		res = recordLoad(t, srv, db, sleep)
	}
	checkStage(t, res, wait)
	checkExecuting(t, res, timed)
}

// recordLoad records checkRecording's load.
func recordLoad(t *testing.T, srv bench.DatabaseServer, db *sql.DB, sleep string) bench.DatabaseRecordingResult {
	ctx := context.Background()
	rec := srv.Record(ctx)
	t0 := time.Now()
	rec.SetT0(t0)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var v int
	if err := tx.QueryRowContext(ctx, "SELECT value FROM "+bench.DatabaseTable+" WHERE id = 1 FOR UPDATE").Scan(&v); err != nil {
		t.Fatal(err)
	}
	runAll(t, db, 5, sleep)
	tx.Commit()
	runAll(t, db, 20, "SELECT count(*) FROM "+bench.DatabaseTable)
	// PostgreSQL publishes a session's counters a second after at most.
	time.Sleep(1500 * time.Millisecond)
	stage := bench.StageResult{Index: 0, Duration: bench.Duration(time.Since(t0) + time.Second)}
	return rec.Stop(ctx, nil, []bench.StageResult{stage})
}

// checkExecuting checks the statements executing by the server's own
// timing, where it has one: five sessions sleeping 4 s each in a stage of
// about 6 s executed 20 s of statements, about 3.4 at a time, never more
// than the 5 sessions at once, 0.7-0.9 s each with the 20 short reads
// after them; elsewhere no such figure.
func checkExecuting(t *testing.T, res bench.DatabaseRecordingResult, timed bool) {
	st := res.Stages[0]
	has := slices.ContainsFunc(res.Series, func(s bench.Series) bool { return s.Name == database.SeriesExecuting })
	switch {
	case !timed && (has || st.Executing != 0):
		t.Errorf("a server that does not time its statements gave series %t, executing %g", has, st.Executing)
	case timed && (!has || st.Executing < 2 || st.Executing > 5):
		t.Errorf("series %s %t, statements executing %.2f on average; want 2 to 5 (20 s of sleeps over the stage, 5 at once)",
			database.SeriesExecuting, has, st.Executing)
	case timed && (st.StatementMs() < 700 || st.StatementMs() > 900):
		// 20 s of sleeps over 25 statements, and up to 3 of the
		// transaction's, whether before the first read or not.
		t.Errorf("statements %.1f ms each on average, %.2f a second; want 700 to 900 (20 s of sleeps over 25-28 statements)",
			st.StatementMs(), st.StatementsPerSec)
	}
}

// checkStage checks the summary of a recording of checkRecording's load.
func checkStage(t *testing.T, res bench.DatabaseRecordingResult, wait string) {
	// A sample may fail on a machine the suite saturates (a connect that
	// times out); it is counted, and the figures below must still be read.
	if res.Failures != 0 {
		t.Logf("%d samples failed, the last with %s", res.Failures, res.LastError)
	}
	if len(res.Stages) != 1 {
		t.Fatalf("%d stages summarised, want 1", len(res.Stages))
	}
	st := res.Stages[0]
	t.Logf("stage: %+v", st)
	for _, c := range []struct {
		what string
		got  float64
		want float64
	}{
		{"active connections' peak", st.Connections[bench.DatabaseActive].Peak, 5},
		{"idle connections' peak", st.Connections[bench.DatabaseIdle].Peak, 5},
		{"idle in transaction's peak", st.Connections[bench.DatabaseIdleInTransaction].Peak, 1},
		{"waits " + wait + "'s peak", st.Waits[wait].Peak, 5},
		{"locks' peak", st.Locks.Peak, 1},
		// Samples every 250 ms over 3.5 s: a busy machine may make them late, not fewer than a few.
		{"samples", float64(st.Samples), 3},
	} {
		if c.got < c.want {
			t.Errorf("%s = %g, want %g at least", c.what, c.got, c.want)
		}
	}
	if st.TransactionsPerSec <= 0 || st.RowsPerSec <= 0 {
		t.Errorf("transactions/s %g, rows/s %g: want both above 0", st.TransactionsPerSec, st.RowsPerSec)
	}
	names := map[string]bool{}
	for _, s := range res.Series {
		names[s.Name] = true
	}
	for _, name := range []string{database.SeriesConnections, database.SeriesWaits, database.SeriesTransactions, database.SeriesRows, database.SeriesLocks} {
		if !names[name] {
			t.Errorf("no series %s", name)
		}
	}
}

// runAll runs query n times at once and waits for them.
func runAll(t *testing.T, db *sql.DB, n int, query string) {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			var out sql.RawBytes
			rows, err := db.Query(query)
			if err == nil {
				for rows.Next() {
					err = rows.Scan(&out)
				}
				rows.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
}

func TestStartDatabase_InitError(t *testing.T) {
	t.Parallel()
	script := "CREATE TABLE a (id integer);\nINSERT INTO a VALUES (1);\nSELECT * FROM no_such_table;\nINSERT INTO a VALUES (2);\n"
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			runID := newRunID()
			rt := database.NewRuntime(engines, database.Options{History: history})
			srv, err := rt.StartDatabase(context.Background(), bench.DatabaseRequest{RunID: runID, Kind: k.kind, Init: script})
			if srv != nil {
				srv.Stop(context.Background())
			}
			var e *bench.Error
			if !errors.As(err, &e) || e.Code != bench.EINVALID || e.Field != "database.init" {
				t.Fatalf("StartDatabase = %v, want an EINVALID error about database.init", err)
			}
			for _, want := range []string{"line 3", "no_such_table"} {
				if !strings.Contains(e.Message, want) {
					t.Errorf("message %q lacks %q", e.Message, want)
				}
			}
			t.Logf("message: %s", e.Message)
			if n := leftovers(t, runID); n != 0 {
				t.Errorf("%d containers of run %s left after a failed init", n, runID)
			}
		})
	}
}

func TestStartDatabase_ExitsAtOnce(t *testing.T) {
	t.Parallel()
	bad := map[string][]string{
		bench.DatabasePostgres: {"-c", "no_such_setting=1"},
		bench.DatabaseMySQL:    {"--no-such-setting=1"},
	}
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			runID := newRunID()
			rt := database.NewRuntime(engines, database.Options{History: history, ServerArgs: bad})
			start := time.Now()
			srv, err := rt.StartDatabase(context.Background(), bench.DatabaseRequest{RunID: runID, Kind: k.kind})
			if srv != nil {
				srv.Stop(context.Background())
			}
			if bench.ErrorCode(err) != bench.EUNAVAILABLE {
				t.Fatalf("StartDatabase = %v, want an EUNAVAILABLE error", err)
			}
			t.Logf("failed in %s: %v", time.Since(start).Round(time.Millisecond), err)
			setting := strings.TrimLeft(strings.Split(bad[k.kind][len(bad[k.kind])-1], "=")[0], "-")
			for _, want := range []string{"database " + k.kind, "exited before it answered", "its log ends", setting} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q", want)
				}
			}
			if n := leftovers(t, runID); n != 0 {
				t.Errorf("%d containers of run %s left after a failed start", n, runID)
			}
		})
	}
}

// A server that runs but never answers on its port (told to listen on none):
// the wait ends at the bound, the error says how much
// CPU time the server had meanwhile, which tells a starved server from a
// hung one, and nothing is left running.
func TestStartDatabase_NoAnswer(t *testing.T) {
	t.Parallel()
	deaf := map[string][]string{
		bench.DatabasePostgres: {"-c", "listen_addresses="},
		bench.DatabaseMySQL:    {"--skip-networking"},
	}
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			runID := newRunID()
			rt := database.NewRuntime(engines, database.Options{History: history, ServerArgs: deaf, ReadyTimeout: 3 * time.Second})
			srv, err := rt.StartDatabase(context.Background(), bench.DatabaseRequest{RunID: runID, Kind: k.kind})
			if srv != nil {
				srv.Stop(context.Background())
			}
			if bench.ErrorCode(err) != bench.EUNAVAILABLE {
				t.Fatalf("StartDatabase = %v, want an EUNAVAILABLE error", err)
			}
			t.Logf("%v", err)
			// Its log may still be empty: in a clean clone's side phase the
			// server had 0.17 s of CPU in the 3 s.
			for _, want := range []string{"did not answer within 3s, in which it had", "s of CPU time"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q", want)
				}
			}
			if n := leftovers(t, runID); n != 0 {
				t.Errorf("%d containers of run %s left after a server that never answered", n, runID)
			}
		})
	}
}

// A port another process takes between the pick and the server's bind: the
// server is started again on another, and says so; a clean clone's tests
// lost a run to it ("could not bind IPv4 address: Address already in use").
func TestStartDatabase_PortTakenUnderIt(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			held, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close()
			heldPort := held.Addr().(*net.TCPAddr).Port
			var log strings.Builder
			rt := database.NewRuntime(engines, database.Options{History: history, Log: &log})
			picks := 0
			database.SetPorts(rt, func() (int, error) {
				picks++
				if picks == 1 {
					return heldPort, nil
				}
				return database.FreeLocalPort()
			})
			runID := newRunID()
			srv, err := rt.StartDatabase(context.Background(), bench.DatabaseRequest{RunID: runID, Kind: k.kind})
			if err != nil {
				t.Fatalf("StartDatabase with its first port taken = %v, want it started on another", err)
			}
			defer srv.Stop(context.Background())
			if got := srv.Conn().Port; got == heldPort || picks != 2 {
				t.Errorf("server on port %d after %d picks, want another port than the taken %d, at the second pick", got, picks, heldPort)
			}
			if want := fmt.Sprintf("port %d was taken", heldPort); !strings.Contains(log.String(), want) {
				t.Errorf("the runtime's log %q lacks %q", log.String(), want)
			}
			if n := leftovers(t, runID); n != 1 {
				t.Errorf("%d containers of run %s, want the one started on the second port", n, runID)
			}
		})
	}
}

func TestStartDatabase_RemoteEngine(t *testing.T) {
	t.Parallel()
	remote, err := targets.NewRuntime(targets.RuntimeOptions{History: history,
		Engine: targets.EngineConfig{Name: "far", Host: "tcp://127.0.0.1:1", Address: "127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	both, err := targets.NewEngines(engines.Local(), remote)
	if err != nil {
		t.Fatal(err)
	}
	_, err = database.NewRuntime(both, database.Options{History: history}).StartDatabase(context.Background(),
		bench.DatabaseRequest{RunID: newRunID(), Engine: "far", Kind: bench.DatabasePostgres})
	if bench.ErrorCode(err) != bench.EUNAVAILABLE || !strings.Contains(err.Error(), "remote engine") {
		t.Errorf("StartDatabase on a remote engine = %v, want an EUNAVAILABLE error saying it is not supported", err)
	}
}

// newRunID names a test's run, whose containers it looks for.
func newRunID() string { return fmt.Sprintf("database-test-run-%08x", rand.Uint32()) }

// leftovers counts the containers, running or not, of a run.
func leftovers(t *testing.T, runID string) int {
	t.Helper()
	list, err := engines.Local().Client().ContainerList(context.Background(), client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("label", targets.LabelRun+"="+runID)})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}

// open opens a pool to dsn holding up to ten idle connections, closed when
// the test ends.
func open(t *testing.T, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxIdleConns(10)
	t.Cleanup(func() { db.Close() })
	return db
}

// queryString runs a query of one value and returns it as text.
func queryString(t *testing.T, db *sql.DB, query string) string {
	t.Helper()
	var v string
	if err := db.QueryRow(query).Scan(&v); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return v
}

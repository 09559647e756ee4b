package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/spec"
	"github.com/threadbench/threadbench/internal/store"
)

func TestExperimentsList(t *testing.T) {
	code, stdout, stderr := run(t, nil, "experiments", "list")
	mustOK(t, code, stderr)
	for _, name := range builtin.ExperimentNames() {
		if !strings.Contains(stdout, "\n"+name+" ") {
			t.Errorf("%s not listed:\n%s", name, stdout)
		}
	}
	code, stdout, stderr = run(t, nil, "experiments", "list", "-o", "json")
	mustOK(t, code, stderr)
	var exps []bench.Experiment
	if err := json.Unmarshal([]byte(stdout), &exps); err != nil {
		t.Fatalf("decode: %v\n%s", err, stdout)
	}
	if len(exps) != len(builtin.ExperimentNames()) || exps[1].Name != "seed-001" || len(exps[1].Parts) != 2 || len(exps[1].Rows) == 0 {
		t.Errorf("listed %+v", exps)
	}
}

// Bad experiment input is refused before anything starts, naming the
// field, as any bad spec is.
func TestRunExperimentBadInput(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // should anything slip through, the run ends at once
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"Unknown", []string{"--experiment", "seed-9"}, `experiment.name: no built-in experiment "seed-9"`},
		{"UnknownPart", []string{"--experiment", "seed-001", "--part", "callee-1"}, `experiment.part: experiment seed-001 has no part "callee-1"`},
		{"PartAlone", []string{"--part", "callee-400"}, "part: --part picks a part of an experiment"},
		{"NegativeScale", []string{"--experiment", "seed-003", "--scale", "-2"}, "experiment.scale: must be above 0"},
		{"TargetsToo", []string{"--experiment", "seed-003", "--targets", "go"}, "targets: experiment seed-003 sets targets itself"},
		{"EndpointToo", []string{"--experiment", "seed-000", "--endpoint", "light"}, "workload: experiment seed-000 sets workload itself"},
		{"WarmupToo", []string{"--experiment", "seed-002", "--no-warmup"}, "warmup: experiment seed-002 sets warmup itself"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dbDir := filepath.Join(t.TempDir(), "history")
			args := append([]string{"run", "--db", filepath.Join(dbDir, "history.db")}, tt.args...)
			code, stdout, stderr := runContext(t, ctx, map[string]string{"HOME": t.TempDir()}, args...)
			wantBadInput(t, code, stdout, stderr, tt.want)
			if _, err := os.Stat(dbDir); !os.IsNotExist(err) {
				t.Errorf("history directory %s exists: the database was opened before the spec was checked", dbDir)
			}
		})
	}
}

// runs show prints an experiment run's seed table after its own tables.
func TestRunsShowExperiment(t *testing.T) {
	db := filepath.Join(t.TempDir(), "history.db")
	h := store.NewDB(db)
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	rs := bench.RunSpec{Experiment: &bench.ExperimentRef{Name: "seed-004"}}
	catalog := bench.Catalog{Targets: newGlobalState(context.Background(), nil, nil, nil, nil).catalog.Infos(), Builtins: builtin.Set}
	if err := spec.Prepare(&rs, catalog); err != nil {
		t.Fatal(err)
	}
	stored := &bench.Run{Name: rs.Name, Status: bench.RunSucceeded, Spec: rs}
	for _, target := range rs.Targets {
		stored.Targets = append(stored.Targets, bench.TargetResult{Target: target, Status: bench.TargetSucceeded,
			Total: &bench.Stats{Requests: 100, Successes: 100, Throughput: 331, Latency: bench.Latency{Mean: 1500}}})
	}
	if err := h.CreateRun(context.Background(), stored); err != nil {
		t.Fatal(err)
	}
	h.Close()
	code, stdout, stderr := run(t, nil, "--db", db, "runs", "show", stored.ID)
	mustOK(t, code, stderr)
	for _, want := range []string{"experiment seed-004: seed 004", "nGrinder summary", "331.0 (332.0)", "331.0 (820.4)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("runs show lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, stderr = run(t, nil, "--db", db, "runs", "show", stored.ID, "-o", "json")
	mustOK(t, code, stderr)
	if strings.Contains(stdout, "nGrinder summary") {
		t.Errorf("the seed table in JSON output:\n%s", stdout)
	}
}

// POST /runs {"experiment": "seed-003"} queues the experiment's run, expanded;
// bad experiment input is a 400 naming the field.
func TestServeExperiment(t *testing.T) {
	d := startStandInServe(t, time.Millisecond, nil)
	h := map[string]string{"Content-Type": "application/json"}
	resp, body := d.request(t, "POST", "/runs", `{"experiment": "seed-003"}`, h)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /runs = %d: %s", resp.StatusCode, body)
	}
	var queued bench.Run
	if err := json.Unmarshal(body, &queued); err != nil {
		t.Fatal(err)
	}
	d.waitStatus(t, queued.ID, bench.RunSucceeded)
	run := d.run(t, queued.ID)
	if run.Name != "seed-003" || len(run.Spec.Cases) != 11 || !reflect.DeepEqual(*run.Spec.Experiment, bench.ExperimentRef{Name: "seed-003", Scale: 1}) || len(run.Targets) != 11 {
		t.Errorf("run %q: %d cases, experiment %+v, %d results", run.Name, len(run.Spec.Cases), run.Spec.Experiment, len(run.Targets))
	}
	for _, tt := range []struct{ body, field string }{
		{`{"experiment": "seed-9"}`, "experiment.name"},
		{`{"experiment": {"name": "seed-001", "part": "x"}}`, "experiment.part"},
		{`{"experiment": "seed-003", "targets": ["go"]}`, "targets"},
		{`{"experiment": {"name": "seed-003", "cases": ["native@17"]}}`, "experiment.cases"},
	} {
		resp, body := d.request(t, "POST", "/runs", tt.body, h)
		var problem struct {
			Field string `json:"field"`
		}
		_ = json.Unmarshal(body, &problem)
		if resp.StatusCode != http.StatusBadRequest || problem.Field != tt.field {
			t.Errorf("POST %s = %d %s, want 400 naming %s", tt.body, resp.StatusCode, body, tt.field)
		}
	}
}

// partShape is what a run of an experiment's part is made of, as both
// paths must agree: its part, its results (key and stages measured), its
// status, and how many runs it is linked with.
type partShape struct {
	Part    string
	Results []string // "key: N stages"
	Status  bench.RunStatus
	Linked  int
}

// storedRuns reads every run of the history at db, oldest first.
func storedRuns(t *testing.T, db string) []*bench.Run {
	t.Helper()
	h := store.NewDB(db)
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	summaries, _, err := h.FindRunSummaries(context.Background(), bench.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var runs []*bench.Run
	for i := range summaries { // newest first
		run, err := h.FindRunByID(context.Background(), summaries[len(summaries)-1-i].ID)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	return runs
}

func shapeOf(run bench.Run) partShape {
	s := partShape{Part: run.Spec.Experiment.Part, Status: run.Status, Linked: len(run.Parts)}
	for _, tr := range run.Targets {
		s.Results = append(s.Results, tr.Key()+": "+strconv.Itoa(len(tr.Stages))+" stages")
	}
	return s
}

// The one path: the same experiment of several parts, run by `run` and
// submitted with POST /runs, is the same runs, through the same prepare,
// queue, runner and store (the stand-in executing them, as in the
// conformance job): a run per part in order, linked, each with the same
// results and stages.
func TestExperimentPartsAgree(t *testing.T) {
	d := startStandInServe(t, time.Millisecond, nil) // also puts the stand-in under `run`
	resp, body := d.request(t, "POST", "/runs", `{"experiment": "seed-001"}`, map[string]string{"Content-Type": "application/json"})
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /runs = %d: %s", resp.StatusCode, body)
	}
	var first bench.Run
	if err := json.Unmarshal(body, &first); err != nil {
		t.Fatal(err)
	}
	var daemon []partShape
	for _, id := range first.Parts {
		d.waitStatus(t, id, bench.RunSucceeded)
		daemon = append(daemon, shapeOf(d.run(t, id)))
	}

	db := filepath.Join(t.TempDir(), "history.db")
	code, stdout, stderr := run(t, nil, "--db", db, "run", "--experiment", "seed-001", "-q")
	mustOK(t, code, stderr)
	var cli []partShape
	for _, stored := range storedRuns(t, db) {
		cli = append(cli, shapeOf(*stored))
	}

	if len(daemon) != 2 || daemon[0].Part != "callee-200" || daemon[1].Part != "callee-400" || len(daemon[0].Results) != 7 {
		t.Fatalf("POST /runs made %+v, want seed-001's two parts of seven cases each", daemon)
	}
	if !reflect.DeepEqual(cli, daemon) {
		t.Errorf("run made\n%+v\nPOST /runs made\n%+v", cli, daemon)
	}
	for _, part := range []string{"callee-200", "callee-400"} {
		if !strings.Contains(stdout, "experiment seed-001") || !strings.Contains(stderr, "seed-001 "+part) && !strings.Contains(stdout, part) {
			t.Errorf("run's output does not show part %s:\n%s\n%s", part, stdout, stderr)
		}
	}
}

// Ctrl-C during an experiment's first part cancels it, keeping what it
// measured, and the part after it before it starts; exit status 1.
func TestExperimentInterrupted(t *testing.T) {
	startStandInServe(t, 300*time.Millisecond, nil) // puts the stand-in under `run`
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &lockedBuffer{}
	g := newGlobalState(ctx, strings.NewReader(""), io.Discard, stderr, func(string) string { return "" })
	db := filepath.Join(t.TempDir(), "history.db")
	exit := make(chan int, 1)
	go func() { exit <- execute(g, []string{"--db", db, "run", "--experiment", "seed-001"}) }()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(stderr.String(), "] stage 2") { // stage 1 measured
		select {
		case code := <-exit:
			t.Fatalf("run ended (exit %d) before its second stage:\n%s", code, stderr)
		case <-deadline:
			t.Fatalf("no second stage after 10s:\n%s", stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if code := <-exit; code != exitFailure {
		t.Errorf("exit %d after Ctrl-C, want %d:\n%s", code, exitFailure, stderr)
	}
	runs := storedRuns(t, db)
	if len(runs) != 2 {
		t.Fatalf("%d runs stored, want the two parts", len(runs))
	}
	first, second := runs[0], runs[1]
	if first.Status != bench.RunCanceled || first.StartedAt == nil || len(first.Targets[0].Stages) == 0 {
		t.Errorf("first part %s, started %v, %d stages of its first result kept; want canceled with what it measured", first.Status, first.StartedAt, len(first.Targets[0].Stages))
	}
	if second.Status != bench.RunCanceled || second.StartedAt != nil {
		t.Errorf("second part %s (started %v), want canceled before it started", second.Status, second.StartedAt)
	}
}

// failingRuntime is the stand-in's runtime whose targets never start.
type failingRuntime struct{ bench.TargetRuntime }

func (failingRuntime) Start(context.Context, string, bench.ImageInfo, bench.StartRequest) (bench.Target, error) {
	return nil, errors.New("no such image")
}

// A part that fails ends `run` with exit status 1 after its tables, and the
// part after it is cancelled before it starts, not left queued for a
// daemon on the same history to take up.
func TestExperimentFailedPartStopsTheRest(t *testing.T) {
	saved := openRunDeps
	t.Cleanup(func() { openRunDeps = saved })
	openRunDeps = func(g *globalState, cfg config, db *store.DB, _ bool) (*runDeps, error) {
		deps := newStandInDeps(g, cfg, db, time.Millisecond)
		deps.config.Targets = failingRuntime{deps.config.Targets}
		return deps, nil
	}
	db := filepath.Join(t.TempDir(), "history.db")
	code, stdout, stderr := run(t, nil, "--db", db, "run", "--experiment", "seed-001", "-q")
	if code != exitFailure || strings.Count(stdout, "experiment seed-001:") != 1 {
		t.Errorf("exit %d with %d seed tables, want %d after the first part's:\n%s\n%s", code, strings.Count(stdout, "experiment seed-001:"), exitFailure, stdout, stderr)
	}
	runs := storedRuns(t, db)
	if len(runs) != 2 {
		t.Fatalf("%d runs stored, want the two parts", len(runs))
	}
	first, second := runs[0], runs[1]
	if first.Status != bench.RunFailed || second.Status != bench.RunCanceled {
		t.Errorf("parts %s and %s, want failed and canceled", first.Status, second.Status)
	}
	if !strings.Contains(second.Error, "the experiment's part callee-200 (run "+first.ID+") failed") {
		t.Errorf("the later part says %q", second.Error)
	}
}

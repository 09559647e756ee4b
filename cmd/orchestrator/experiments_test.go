package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
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

// An experiment of two parts is two runs, in order; --part picks one.
func TestExperimentParts(t *testing.T) {
	for _, tt := range []struct {
		ref  bench.ExperimentRef
		want []string
	}{
		{bench.ExperimentRef{Name: "seed-001", Scale: 0.5}, []string{"callee-200", "callee-400"}},
		{bench.ExperimentRef{Name: "seed-001", Part: "callee-400"}, []string{"callee-400"}},
		{bench.ExperimentRef{Name: "seed-003"}, []string{""}},
	} {
		specs, err := experimentParts(bench.RunSpec{Experiment: &tt.ref})
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, s := range specs {
			parts = append(parts, s.Experiment.Part)
			if s.Experiment.Scale != tt.ref.Scale {
				t.Errorf("%+v: part %q lost the scale", tt.ref, s.Experiment.Part)
			}
		}
		if !slices.Equal(parts, tt.want) {
			t.Errorf("%+v: parts %v, want %v", tt.ref, parts, tt.want)
		}
	}
}

// runs show prints an experiment run's seed table after its own tables.
func TestRunsShowExperiment(t *testing.T) {
	db := filepath.Join(t.TempDir(), "history.db")
	h := store.NewDB(db)
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	spec := bench.RunSpec{Experiment: &bench.ExperimentRef{Name: "seed-004"}}
	catalog := bench.Catalog{Targets: newGlobalState(context.Background(), nil, nil, nil, nil).catalog.Infos(), Builtins: builtin.Set}
	if err := bench.Prepare(&spec, catalog); err != nil {
		t.Fatal(err)
	}
	stored := &bench.Run{Name: spec.Name, Status: bench.RunSucceeded, Spec: spec}
	for _, target := range spec.Targets {
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
	if run.Name != "seed-003" || len(run.Spec.Cases) != 8 || !reflect.DeepEqual(*run.Spec.Experiment, bench.ExperimentRef{Name: "seed-003", Scale: 1}) || len(run.Targets) != 8 {
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

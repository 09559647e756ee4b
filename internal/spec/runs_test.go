package spec_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/spec"
)

// POST /runs {"experiment": "seed-003"} is a whole spec: the strict
// decoder reads the bare name, Prepare expands it and names the run.
func TestExperimentByName(t *testing.T) {
	rs, err := spec.Decode([]byte(`{"experiment": "seed-003"}`), "request body")
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil {
		t.Fatal(err)
	}
	if got, want := len(rs.Cases), 11; got != want {
		t.Fatalf("%d cases, want %d", got, want)
	}
	if rs.Name != "seed-003" || !reflect.DeepEqual(*rs.Experiment, bench.ExperimentRef{Name: "seed-003", Scale: 1}) {
		t.Errorf("name %q, experiment %+v", rs.Name, rs.Experiment)
	}
	c := rs.Cases[2] // synchronized@21
	if c.Name != "synchronized@21" || c.Target != "java-virtual@21" || c.Java.VirtualParallelism != 1 || c.Workload.Requests[0].Endpoint != "synchronized" {
		t.Errorf("case 2: %+v", c)
	}
	if c := rs.Cases[3]; c.Name != "lock@21" || c.Target != "java-virtual@21" || c.Java.VirtualParallelism != 1 || c.Workload.Requests[0].Endpoint != "lock" {
		t.Errorf("case 3: %+v", c)
	}
	if c := rs.Cases[10]; c.Name != "go-native" || c.Target != "go" || c.Workload.Requests[0].Endpoint != "native" {
		t.Errorf("case 10: %+v", c)
	}
	if got := rs.ForCase(rs.Cases[0]).Java.TomcatMaxThreads; got != 1 {
		t.Errorf("platform-1-thread runs with %d Tomcat threads, want 1", got)
	}
}

// The object form takes a scale and a part; seed 003 scales its sleep,
// users and length together, keeping 100 req/s for an unpinned carrier.
func TestExperimentObject(t *testing.T) {
	for _, tt := range []struct {
		doc   string
		check func(t *testing.T, rs bench.RunSpec)
	}{
		{`experiment: {name: seed-003, scale: 0.2}`, func(t *testing.T, rs bench.RunSpec) {
			st, w := rs.Profile.Stages[0], rs.Cases[1].Workload
			if st.Concurrency != 20 || st.Duration != bench.Duration(4*time.Second) || w.Requests[0].Params["duration"] != "200" || w.Timeout != st.Duration {
				t.Errorf("stage %+v, workload %+v; want 20 users for 4 s (the shortest test) on 200 ms, timeout 4 s", st, w)
			}
		}},
		{`{"experiment": {"name": "seed-001", "part": "callee-400"}, "name": "mine", "limits": {"cpus": 2}}`, func(t *testing.T, rs bench.RunSpec) {
			if rs.Downstream.Workers != 400 || rs.Name != "mine" || rs.Limits.CPUs != 2 {
				t.Errorf("downstream %+v, name %q, limits %+v", rs.Downstream, rs.Name, rs.Limits)
			}
			fan := rs.Cases[0].Workload.Iteration[1].Request
			if fan.Params["duration"] != "1500" || fan.Params["timeout"] != "2500" || fan.Params["calls"] != "1000" {
				t.Errorf("fan-out %v; want 1000 calls of 1500 ms, timeout 2500 ms at the default scale", fan.Params)
			}
		}},
		// Only the cases named, in the experiment's order, whatever the
		// order given; the reference keeps them, so the stored run says so.
		{`experiment: {name: seed-003, cases: [synchronized@25, native@21]}`, func(t *testing.T, rs bench.RunSpec) {
			var names []string
			for _, c := range rs.Cases {
				names = append(names, c.Name)
			}
			if strings.Join(names, ",") != "native@21,synchronized@25" || len(rs.Experiment.Cases) != 2 {
				t.Errorf("cases %v, experiment %+v; want native@21, synchronized@25", names, rs.Experiment)
			}
		}},
		{`experiment: {name: seed-004, cases: [go]}`, func(t *testing.T, rs bench.RunSpec) {
			if strings.Join(rs.Targets, ",") != "go" {
				t.Errorf("targets %v; want go alone", rs.Targets)
			}
		}},
		// The seed's JDK by default (seed 002 ran Java 21), another when
		// the rs picks it; a seed that does not say runs the default.
		{`experiment: seed-002`, func(t *testing.T, rs bench.RunSpec) {
			if rs.Java.JDK != 21 {
				t.Errorf("JDK %d, want the seed's 21", rs.Java.JDK)
			}
		}},
		{`{experiment: seed-002, java: {jdk: 25}}`, func(t *testing.T, rs bench.RunSpec) {
			if rs.Java.JDK != 25 {
				t.Errorf("JDK %d, want the rs's 25", rs.Java.JDK)
			}
		}},
		{`experiment: seed-004`, func(t *testing.T, rs bench.RunSpec) {
			if rs.Java.JDK != 0 {
				t.Errorf("JDK %d, want none (the targets' default)", rs.Java.JDK)
			}
		}},
	} {
		rs, err := spec.Decode([]byte(tt.doc), "spec.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil {
			t.Fatalf("%s: %v", tt.doc, err)
		}
		tt.check(t, rs)
	}
}

func TestExperimentErrors(t *testing.T) {
	for _, tt := range []struct {
		doc, field, message string
	}{
		{`{"experiment": "seed-999"}`, "experiment.name", "seed-000, seed-001"},
		{`{"experiment": {"name": "seed-003", "scale": -1}}`, "experiment.scale", "got -1"},
		{`{"experiment": {"name": "seed-001", "part": "callee-300"}}`, "experiment.part", "callee-200, callee-400"},
		{`{"experiment": {"name": "seed-003", "part": "x"}}`, "experiment.part", "no parts"},
		{`{"experiment": "seed-003", "targets": ["go"]}`, "targets", "sets targets itself"},
		{`{"experiment": "seed-003", "profile": "smoke"}`, "profile", "sets profile itself"},
		{`{"experiment": "seed-003", "java": {"jdk": 21}}`, "java.jdk", "runs each case on the JDK its name says"},
		{`{"experiment": 3}`, "experiment", "must be"},
		{`{"experiment": {"name": "seed-003", "cases": ["native@21", "native@17"]}}`, "experiment.cases", `no case "native@17" (cases: platform-1-thread@21,`},
		{`{"experiment": {"name": "seed-004", "cases": ["java"]}}`, "experiment.cases", "(cases: java-platform, java-virtual, go)"},
	} {
		rs, err := spec.Decode([]byte(tt.doc), "request body")
		if err == nil {
			err = spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails))
		}
		var e *bench.Error
		if !asError(err, &e) || e.Code != bench.EINVALID || e.Field != tt.field || !strings.Contains(e.Message, tt.message) {
			t.Errorf("%s: got %v, want %s error on %s containing %q", tt.doc, err, bench.EINVALID, tt.field, tt.message)
		}
	}
}

// Every built-in experiment, every part, prepares at its default scale,
// each of the seed's rows names one of its cases, and its attacks leave
// room within 5 minutes for the targets' start-ups (about 20 s for a Java
// target on one busy CPU).
func TestExperimentsPrepare(t *testing.T) {
	for _, e := range builtin.Experiments() {
		parts := e.Parts
		if len(parts) == 0 {
			parts = []string{""}
		}
		for _, part := range parts {
			t.Run(e.Name+" "+part, func(t *testing.T) {
				rs := bench.RunSpec{Experiment: &bench.ExperimentRef{Name: e.Name, Part: part}}
				if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil {
					t.Fatal(err)
				}
				if got := rs.Experiment; got.Scale != e.Scale || (part != "" && got.Part != part) {
					t.Errorf("resolved %+v, want scale %g part %q", got, e.Scale, part)
				}
				var cases []string
				for _, c := range rs.RunCases() {
					cases = append(cases, c.Target)
					if c.Name != "" {
						cases[len(cases)-1] = c.Name
					}
				}
				for _, row := range e.RowsOf(rs.Experiment.Part) {
					if !slices.Contains(cases, row.Case) {
						t.Errorf("row %q names case %q; the rs has %v", row.Label, row.Case, cases)
					}
				}
				javaStarts := 0
				for _, c := range rs.RunCases() {
					if !strings.HasPrefix(c.Target, bench.TargetGo) {
						javaStarts++
					}
				}
				if took := attackTime(rs) + time.Duration(javaStarts)*12*time.Second; took > 5*time.Minute {
					t.Errorf("attacks of %s and %d Java start-ups: %s, above 5 minutes", attackTime(rs), javaStarts, took)
				}
			})
		}
	}
}

// Seed 003 warms each case with three requests one at a time, at every
// scale a user may ask for (the rate never below the spec's minimum).
func TestSeed003WarmupAtEveryScale(t *testing.T) {
	for _, scale := range []float64{0.01, 0.2, 1, bench.MaxExperimentScale} {
		rs := bench.RunSpec{Experiment: &bench.ExperimentRef{Name: "seed-003", Scale: scale}}
		if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil {
			t.Fatalf("scale %g: %v", scale, err)
		}
		w := rs.Warmup
		if w.Disabled || w.Rate < bench.MinRate {
			t.Fatalf("scale %g: warm-up %+v, want one at %g requests/s or more", scale, w, bench.MinRate)
		}
		if n := w.Rate * w.Duration.D().Seconds(); n < 2.99 || n > 3.01 {
			t.Errorf("scale %g: warm-up sends %.2f requests, want 3", scale, n)
		}
	}
}

// An experiment of several parts that picks none is a run per part, in
// order, each prepared; one that picks a part, or has none, is one run.
func TestPrepareRuns(t *testing.T) {
	for _, tt := range []struct {
		ref  bench.ExperimentRef
		want []string // each run's part
	}{
		{bench.ExperimentRef{Name: "seed-001", Scale: 0.25}, []string{"callee-200", "callee-400"}},
		{bench.ExperimentRef{Name: "seed-001", Scale: 0.25, Part: "callee-400"}, []string{"callee-400"}},
		{bench.ExperimentRef{Name: "seed-003", Scale: 0.25}, []string{""}},
		// cases pick the same cases of every part
		{bench.ExperimentRef{Name: "seed-001", Scale: 0.25, Cases: []string{"go-pool"}}, []string{"callee-200", "callee-400"}},
	} {
		ref := tt.ref
		specs, err := spec.PrepareRuns(bench.RunSpec{Name: "mine", Experiment: &ref}, testCatalog(bench.DefaultGuardrails))
		if err != nil {
			t.Fatalf("%+v: %v", tt.ref, err)
		}
		var parts []string
		for _, s := range specs {
			parts = append(parts, s.Experiment.Part)
			if s.Experiment.Scale != 0.25 || s.Name != "mine" || len(s.Targets) == 0 {
				t.Errorf("%+v: part %q prepared as %q at scale %g with targets %v", tt.ref, s.Experiment.Part, s.Name, s.Experiment.Scale, s.Targets)
			}
			if len(tt.ref.Cases) > 0 && (len(s.Cases) != 1 || s.Cases[0].Name != "go-pool") {
				t.Errorf("%+v: part %q has cases %v, want go-pool alone", tt.ref, s.Experiment.Part, s.Cases)
			}
		}
		if !slices.Equal(parts, tt.want) {
			t.Errorf("%+v: parts %v, want %v", tt.ref, parts, tt.want)
		}
		if ref.Part != tt.ref.Part {
			t.Errorf("%+v: the caller's spec was changed to part %q", tt.ref, ref.Part)
		}
	}
	// One part refused refuses them all, naming the field.
	_, err := spec.PrepareRuns(bench.RunSpec{Experiment: &bench.ExperimentRef{Name: "seed-001", Cases: []string{"nope"}}}, testCatalog(bench.DefaultGuardrails))
	var be *bench.Error
	if !errors.As(err, &be) || be.Field != "experiment.cases" {
		t.Errorf("an unknown case: %v, want an error naming experiment.cases", err)
	}
}

// attackTime is what a prepared spec attacks its targets for, warm-ups
// included: the run's length less the targets' start-ups.
func attackTime(rs bench.RunSpec) time.Duration {
	per := rs.Profile.Duration().D()
	if !rs.Warmup.Disabled {
		per += rs.Warmup.Duration.D()
	}
	return per * time.Duration(len(rs.RunCases())*rs.Rounds())
}

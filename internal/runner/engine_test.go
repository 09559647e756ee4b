package runner_test

import (
	"context"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/spec"
)

// labCatalog adds the remote engine "lab" to the test catalog.
func labCatalog() bench.Catalog {
	c := catalog
	c.Engines = []bench.CatalogEngine{{Name: "lab"}}
	return c
}

// executeWithLab prepares spec against labCatalog, stores it and executes
// it on rt, returning the run.
func executeWithLab(t *testing.T, rs bench.RunSpec, rt *fakeRuntime) *bench.Run {
	t.Helper()
	if err := spec.Prepare(&rs, labCatalog()); err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	run := createRun(t, st, rs)
	if err := newRunner(t, rt, st).Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	return run
}

// A run on a remote engine starts its targets there, pinned to the remote
// host's last CPUs as many as the limit (the generator is not there to
// share them), and records both hosts.
func TestExecute_RemoteEngine(t *testing.T) {
	t.Parallel()
	rs := shortSpec(t, "go")
	rs.Engine = "lab"
	rt := &fakeRuntime{info: map[string]string{"runtime": "go1.26.8", "cpuModel": "Lab CPU @ 3.0GHz"}}
	run := executeWithLab(t, rs, rt)
	if run.Status != bench.RunSucceeded {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if req := rt.requests[0]; req.Engine != "lab" || req.CPUSet != "7" {
		t.Errorf("started with engine %q, cpuset %q; want lab, on the last of its 8 CPUs", req.Engine, req.CPUSet)
	}
	if got := run.Targets[0].Engine; got != "lab" {
		t.Errorf("result engine %q, want lab", got)
	}
	env := run.Environment
	if env.CPUSplitApplied || env.MixedEngines || len(env.Engines) != 1 {
		t.Fatalf("environment %+v: want no split, one engine, not mixed", env)
	}
	lab := env.Engines[0]
	if !lab.Remote || lab.Host != "lab-host" || lab.Address != "198.18.0.2" || lab.CPUs != 8 || lab.TargetCPUSet != "7" || lab.CPUModel != "Lab CPU @ 3.0GHz" {
		t.Errorf("engine environment %+v: want the remote host's, its CPU model from GET /info", lab)
	}
}

// A run whose cases run on two engines is marked so, and each result says
// where it ran.
func TestExecute_MixedEngines(t *testing.T) {
	t.Parallel()
	rs := shortSpec(t, "go")
	rs.Targets = nil
	rs.Cases = []bench.Case{{Name: "here", Target: "go"}, {Name: "there", Target: "go", Engine: "lab"}}
	rt := &fakeRuntime{}
	run := executeWithLab(t, rs, rt)
	if !run.Environment.MixedEngines || len(run.Environment.Engines) != 2 {
		t.Errorf("environment %+v: want both engines, marked mixed", run.Environment)
	}
	if a, b := run.Target("here").Engine, run.Target("there").Engine; a != bench.EngineLocal || b != "lab" {
		t.Errorf("results ran on %q and %q, want local and lab", a, b)
	}
	if a, b := rt.requests[0].Engine, rt.requests[1].Engine; a != bench.EngineLocal || b != "lab" {
		t.Errorf("started on %q and %q, want local and lab", a, b)
	}
}

// A downstream service on a remote engine runs there beside the targets,
// on the CPUs they leave.
func TestExecute_RemoteDownstream(t *testing.T) {
	t.Parallel()
	rs := shortSpec(t, "go")
	rs.Engine = "lab"
	rs.Downstream = &bench.Downstream{Target: "java-platform", Workers: 40}
	rt := &fakeRuntime{}
	run := executeWithLab(t, rs, rt)
	ds, target := rt.requests[0], rt.requests[1]
	if ds.Engine != "lab" || ds.CPUSet != "0-6" || target.Engine != "lab" || target.CPUSet != "7" {
		t.Errorf("downstream on %s CPUs %q, target on %s CPUs %q; want both on lab, CPUs 0-6 and 7", ds.Engine, ds.CPUSet, target.Engine, target.CPUSet)
	}
	if run.Downstream.CPUSet != "0-6" {
		t.Errorf("downstream result's cpuset %q, want 0-6", run.Downstream.CPUSet)
	}
}

package runner_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/runner"
)

// poolAttacker is a load engine fake in front of a pool that serves
// capacity req/s: p99 200 ms within it, and far over once past it. It
// keeps the plans it was given.
type poolAttacker struct {
	capacity    float64
	generatorAt float64 // rates at or above it use the generator's CPU up; 0 for never
	mu          sync.Mutex
	plans       []bench.Plan
}

var _ bench.Attacker = (*poolAttacker)(nil)

func (a *poolAttacker) Run(_ context.Context, _ string, plan bench.Plan, obs bench.Observer) (*bench.AttackResult, error) {
	a.mu.Lock()
	a.plans = append(a.plans, plan)
	a.mu.Unlock()
	st := plan.Profile.Stages[0]
	n := int64(st.Rate * st.Duration.D().Seconds())
	p99 := 200.0
	if st.Rate > a.capacity {
		p99 = 200 + 1000*(st.Rate-a.capacity)/a.capacity*10
	}
	gen := &bench.Generator{CPUs: 1, CPUShare: 0.2}
	if a.generatorAt > 0 && st.Rate >= a.generatorAt {
		// 500 ms late: enough alone to break the objective
		gen.CPUShare, gen.SendLagP99 = 0.97, 500
		p99 += 500
	}
	stage := bench.StageResult{Model: bench.ModelOpen, Duration: st.Duration, Rate: st.Rate, Generator: gen,
		Stats: bench.Stats{Requests: n, Successes: n, Throughput: min(st.Rate, a.capacity), Latency: bench.Latency{P99: p99}}}
	res := &bench.AttackResult{Stages: []bench.StageResult{stage}, Total: stage.Stats}
	// as the load engine does: the stage starts, then its seconds, on the
	// attack's own clock
	obs.Stage(bench.StageResult{Index: 0, Model: bench.ModelOpen, Rate: st.Rate})
	obs.Second(bench.Bucket{Second: 0, Stage: 0})
	if !plan.Warmup.Disabled && plan.Warmup.Duration > 0 {
		res.Warmup = &bench.StageResult{Warmup: true, Rate: plan.Warmup.Rate}
	}
	return res, nil
}

// capacitySpec asks for a search whose trials the fake attacker answers at
// once: a virtual second or two each.
func capacitySpec(t *testing.T, targets ...string) bench.RunSpec {
	spec := shortSpec(t, targets...)
	spec.Capacity = &bench.CapacitySpec{Objective: "p99<=300ms", TrialDuration: bench.Duration(time.Second),
		ConfirmDuration: bench.Duration(2 * time.Second), Settle: bench.Duration(time.Millisecond), Budget: bench.Duration(time.Minute)}
	return spec
}

func TestExecute_CapacitySearch(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	att := &poolAttacker{capacity: 400}
	r := runner.New(runner.Config{Targets: &fakeRuntime{}, Store: st, Attacker: att, LockPath: t.TempDir() + "/attack.lock", CPUs: 1})
	run := createRun(t, st, capacitySpec(t, "go"))
	events, _ := r.Hub().Subscribe(run.ID)
	var published []bench.Event
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range events {
			if ev.Type == bench.EventStage || ev.Type == bench.EventSecond {
				published = append(published, ev)
			}
		}
	}()
	if err := r.Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	<-done
	got, err := st.FindRunByID(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	tr := got.Target("go")
	if tr.Status != bench.TargetSucceeded || tr.Capacity == nil {
		t.Fatalf("go %s %q capacity %v, want a search result", tr.Status, tr.Error, tr.Capacity)
	}
	c := tr.Capacity
	if c.Rate > 400 || c.Rate < 392 || c.Stop != "precision" || c.Objective != "p99<=300ms" {
		t.Errorf("capacity %+v, want about 400 req/s found to 2%%", c)
	}
	if c.Failed == nil || c.Failed.Rate <= c.Rate || !strings.HasPrefix(c.Failed.Violations[0], "p99 ") {
		t.Errorf("failed %+v, want the next rate up with its p99", c.Failed)
	}
	// every trial is a stage of the stored run, in order, the warm-up once
	if len(tr.Stages) != c.Trials || len(att.plans) != c.Trials {
		t.Fatalf("%d stages, %d attacks for %d trials", len(tr.Stages), len(att.plans), c.Trials)
	}
	for i, s := range tr.Stages {
		if s.Index != i || s.Rate != att.plans[i].Profile.Stages[0].Rate || !strings.Contains(s.Name, "/s") {
			t.Errorf("stage %d: %+v", i, s)
		}
		if warm := !att.plans[i].Warmup.Disabled; warm != (i == 0) {
			t.Errorf("trial %d warmed up: %v", i, warm)
		}
	}
	last := c.Confirmations[len(c.Confirmations)-1]
	if !strings.HasPrefix(tr.Stages[last.Stage].Name, "confirm ") || tr.Total == nil {
		t.Errorf("last confirmation's stage %q, total %v", tr.Stages[last.Stage].Name, tr.Total)
	}
	if tr.Warmup == nil {
		t.Error("the warm-up was not kept")
	}
	// progress tells the trials apart: the n-th trial is stage n, its
	// seconds on the search's clock
	if len(published) != 2*len(tr.Stages) {
		t.Fatalf("%d stage and second events for %d trials", len(published), len(tr.Stages))
	}
	for i := range tr.Stages {
		stage, second := published[2*i], published[2*i+1]
		if stage.Stage.Index != i || stage.Stage.Name != tr.Stages[i].Name || second.Second.Stage != i ||
			second.Second.Second != int(tr.Stages[i].StartOffset.D()/time.Second) {
			t.Errorf("trial %d published as stage %+v, second %+v", i, stage.Stage, second.Second)
		}
	}
}

func TestExecute_CapacityGeneratorBound(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	att := &poolAttacker{capacity: 4000, generatorAt: 1000}
	r := runner.New(runner.Config{Targets: &fakeRuntime{}, Store: st, Attacker: att, LockPath: t.TempDir() + "/attack.lock", CPUs: 1})
	spec := capacitySpec(t, "go", "java-platform")
	run := createRun(t, st, spec)
	if err := r.Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	for _, tr := range run.Targets {
		if tr.Capacity == nil || tr.Capacity.Stop != "generator-bound" || !strings.Contains(tr.Capacity.Reason, "generator CPU 97%") {
			t.Errorf("%s: capacity %+v, want the generator named as the limit", tr.Target, tr.Capacity)
		}
	}
}

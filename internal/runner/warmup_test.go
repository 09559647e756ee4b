package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/runner"
)

// steadySpec is a closed run of one 2 s stage at 4 clients on light,
// after a warm-up until steady over a 5 s window, at most maxWarm.
func steadySpec(t *testing.T, maxWarm time.Duration, targets ...string) bench.RunSpec {
	t.Helper()
	spec := bench.RunSpec{
		Targets:  targets,
		Profile:  bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{{Duration: bench.Duration(2 * time.Second), Concurrency: 4}}},
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light"}}},
		Warmup:   bench.Warmup{UntilSteady: true, Window: bench.Duration(5 * time.Second), MaxDuration: bench.Duration(maxWarm)},
	}
	if err := bench.Prepare(&spec, catalog); err != nil {
		t.Fatal(err)
	}
	return spec
}

func TestExecute_WarmupUntilSteady(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	run := createRun(t, st, steadySpec(t, 15*time.Second, "go"))
	if err := newRunner(t, &fakeRuntime{}, st).Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	got, err := st.FindRunByID(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	tr := got.Target("go")
	ws := tr.WarmupSteady
	// A Go server answering light requests is steady from its first
	// seconds: the warm-up ends once the window fills, well before 15 s
	// (a second or three later on a loaded host, whose noise a window must
	// outlast).
	if ws == nil || !ws.Steady || ws.Seconds < 5 || ws.Seconds > 12 {
		t.Fatalf("warm-up until steady = %+v, want steady after 5 to 12 s", ws)
	}
	if tr.Warmup == nil || !tr.Warmup.Warmup || tr.Warmup.StartOffset.D() > -5*time.Second || tr.Warmup.Concurrency != 4 {
		t.Errorf("warm-up stage = %+v, want one kept apart, at 4 clients, 5 s or more before the profile", tr.Warmup)
	}
	if len(tr.Stages) != 1 || tr.Stages[0].Warmup || tr.Total == nil || tr.Total.Requests == 0 {
		t.Errorf("measured stages = %+v, want the profile's one stage measured", tr.Stages)
	}
}

// climbingAttacker serves a warm-up whose throughput climbs all along
// (a target that never settles), one second per millisecond, and a
// measured profile of one empty stage.
type climbingAttacker struct{ warmups, attacks int }

func (a *climbingAttacker) Run(ctx context.Context, _ string, plan bench.Plan, obs bench.Observer) (*bench.AttackResult, error) {
	t0 := time.Now()
	if obs.Start != nil {
		obs.Start(t0)
	}
	stage := bench.StageResult{Model: plan.Profile.Model, Concurrency: plan.Profile.Stages[0].Concurrency, Duration: plan.Profile.Stages[0].Duration}
	res := &bench.AttackResult{T0: t0, Stages: []bench.StageResult{stage}}
	if plan.Profile.Stages[0].Name != "warm-up" {
		a.attacks++
		return res, nil
	}
	a.warmups++
	for i := range int(plan.Profile.Stages[0].Duration.D() / time.Second) {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		obs.Second(bench.Bucket{Second: i, Stats: bench.Stats{Throughput: 1000 + 30*float64(i), Successes: 1,
			Elapsed: bench.Duration(time.Second), Latency: bench.Latency{P50: 5}}})
		time.Sleep(time.Millisecond)
	}
	return res, nil
}

func TestExecute_WarmupHitsItsMaximum(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	run := createRun(t, st, steadySpec(t, 20*time.Second, "go"))
	attacker := &climbingAttacker{}
	r := runner.New(runner.Config{Targets: &fakeRuntime{}, Store: st, Attacker: attacker,
		LockPath: t.TempDir() + "/attack.lock", CPUs: 1})
	if err := r.Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	got, err := st.FindRunByID(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	ws := got.Target("go").WarmupSteady
	if ws == nil || ws.Steady || ws.Figure != "throughput" || ws.Trend <= 0 || ws.MaxDuration.D() != 20*time.Second {
		t.Fatalf("warm-up until steady = %+v, want its 20 s maximum hit with throughput trending up", ws)
	}
	if attacker.warmups != 1 || attacker.attacks != 1 {
		t.Errorf("%d warm-ups and %d attacks, want one of each", attacker.warmups, attacker.attacks)
	}
}

var _ bench.Attacker = (*climbingAttacker)(nil)

package runner_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/runner"
	"github.com/threadbench/threadbench/internal/store"
)

// poolAttacker is a load engine fake in front of a pool that serves
// capacity req/s: p99 200 ms within it, and far over once past it. It
// keeps the plans it was given.
type poolAttacker struct {
	capacity    float64
	generatorAt float64 // rates at or above it use the generator's CPU up; 0 for never
	mu          sync.Mutex
	plans       []bench.Plan
	// now is the attack clock: each trial's first request is at it, and
	// it moves on by the trial's length and half a second of pause.
	now time.Time
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
	a.mu.Lock()
	if a.now.IsZero() {
		a.now = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	}
	t0 := a.now
	a.now = a.now.Add(st.Duration.D() + 500*time.Millisecond)
	a.mu.Unlock()
	res := &bench.AttackResult{T0: t0, Stages: []bench.StageResult{stage}, Total: stage.Stats}
	if !plan.Warmup.Disabled && plan.Warmup.Duration > 0 {
		res.Warmup = &bench.StageResult{Warmup: true, Rate: plan.Warmup.Rate, StartOffset: -plan.Warmup.Duration, Duration: plan.Warmup.Duration}
	}
	// as the load engine does: the clock's zero, the stage starts, then
	// its seconds, on the attack's own clock
	obs.Start(t0)
	obs.Stage(bench.StageResult{Index: 0, Model: bench.ModelOpen, Rate: st.Rate})
	for i := range int(st.Duration.D() / time.Second) {
		b := bench.Bucket{Second: i, Stage: 0, Stats: bench.Stats{Requests: int64(st.Rate), Throughput: stage.Stats.Throughput,
			Elapsed: bench.Duration(time.Second)}}
		obs.Second(b)
		res.Seconds = append(res.Seconds, b)
	}
	return res, nil
}

// searchRecorder is a metrics recorder fake over one target: it keeps the
// clock's zero it was given and the stages it summarised, and records one
// CPU series.
type searchRecorder struct {
	mu      sync.Mutex
	records int
	t0s     []time.Time
	warmup  *bench.StageResult
	stages  []bench.StageResult
}

var _ bench.Recorder = (*searchRecorder)(nil)

func (f *searchRecorder) Record(context.Context, bench.Target, bench.Limits) bench.Recording {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.records++
	return f
}

func (f *searchRecorder) SetT0(t0 time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t0s = append(f.t0s, t0)
}

func (f *searchRecorder) Latest(string) (time.Time, float64, bool) { return time.Time{}, 0, false }

func (f *searchRecorder) Stop(_ context.Context, warmup *bench.StageResult, stages []bench.StageResult) bench.RecordingResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.warmup, f.stages = warmup, stages
	res := bench.RecordingResult{Series: []bench.Series{{Name: "container_cpu_usage_ratio", Points: []bench.Point{{T: 0, V: 0.4}, {T: 1, V: 0.9}}}}}
	for _, s := range stages {
		res.Resources = append(res.Resources, bench.StageResources{Stage: s.Index, CPUSecondsPer1k: 0.5})
	}
	return res
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
	rec := &searchRecorder{}
	r := runner.New(runner.Config{Targets: &fakeRuntime{}, Store: st, Series: st, Attacker: att, Recorder: rec,
		LockPath: t.TempDir() + "/attack.lock", CPUs: 1})
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
	checkSearchClock(t, tr, published)
	checkSearchRecorded(t, st, got, rec)
}

// checkSearchClock checks that every trial is on the search's clock, from
// its first measured request: each stage at the offset its first request
// had (the fake's trials follow each other by their length and half a
// second), its seconds stored and published in order as that stage's, at
// its offset's nearest second on, none two at one second.
func checkSearchClock(t *testing.T, tr *bench.TargetResult, published []bench.Event) {
	t.Helper()
	var offset time.Duration
	seen := map[int]bool{}
	var stored []bench.Bucket
	for i, s := range tr.Stages {
		if s.StartOffset.D() != offset {
			t.Errorf("trial %d starts at %s on the search's clock, want %s", i, s.StartOffset, offset)
		}
		seconds := 0
		for _, b := range tr.Seconds {
			if b.Stage != i {
				continue
			}
			if b.Second != int(offset.Round(time.Second)/time.Second)+seconds || seen[b.Second] {
				t.Errorf("trial %d's second %d stored at %d (twice: %v)", i, seconds, b.Second, seen[b.Second])
			}
			seen[b.Second], seconds, stored = true, seconds+1, append(stored, b)
		}
		if want := int(s.Duration.D() / time.Second); seconds != want {
			t.Errorf("trial %d stored %d seconds, want its %d", i, seconds, want)
		}
		offset += s.Duration.D() + 500*time.Millisecond
	}
	// progress tells the trials apart as stored: the n-th trial is stage
	// n, then its seconds
	var seconds []bench.Bucket
	stage := -1
	for _, ev := range published {
		switch ev.Type {
		case bench.EventStage:
			if stage++; ev.Stage.Index != stage || ev.Stage.Name != tr.Stages[stage].Name {
				t.Errorf("trial %d published as stage %+v", stage, ev.Stage)
			}
		case bench.EventSecond:
			if ev.Second.Stage != stage {
				t.Errorf("a second of trial %d published as stage %d's", stage, ev.Second.Stage)
			}
			seconds = append(seconds, *ev.Second)
		}
	}
	if len(seconds) != len(stored) {
		t.Fatalf("%d seconds published, %d stored", len(seconds), len(stored))
	}
	for i := range seconds {
		if seconds[i].Second != stored[i].Second || seconds[i].Stage != stored[i].Stage {
			t.Errorf("second %d published as %d of stage %d, stored as %d of stage %d", i,
				seconds[i].Second, seconds[i].Stage, stored[i].Second, stored[i].Stage)
		}
	}
}

// checkSearchRecorded checks that the metrics recorder ran over the whole
// search, as over any attack: started once, its clock's zero the first
// trial's first request, every trial summarised at its offset, each
// trial's resources kept and its series stored.
func checkSearchRecorded(t *testing.T, st *store.DB, run *bench.Run, rec *searchRecorder) {
	t.Helper()
	tr := run.Target("go")
	if rec.records != 1 || len(rec.t0s) != 1 {
		t.Errorf("recorder started %d times, its zero set %d times: want once each", rec.records, len(rec.t0s))
	}
	if len(rec.stages) != len(tr.Stages) || rec.warmup == nil {
		t.Fatalf("recorder summarised %d stages (warm-up %v) of %d trials", len(rec.stages), rec.warmup != nil, len(tr.Stages))
	}
	for i, s := range rec.stages {
		if s.Index != i || s.StartOffset != tr.Stages[i].StartOffset {
			t.Errorf("recorder summarised stage %d at %s, stored at %s", s.Index, s.StartOffset, tr.Stages[i].StartOffset)
		}
	}
	if len(tr.Resources) != len(tr.Stages) || len(tr.Series) != 1 {
		t.Errorf("%d stages' resources and series %v kept for %d trials", len(tr.Resources), tr.Series, len(tr.Stages))
	}
	series, err := st.FindSeries(context.Background(), run.ID, tr.Key(), []string{"container_cpu_usage_ratio"})
	if err != nil || len(series) != 1 || len(series[0].Points) != 2 {
		t.Errorf("stored series %+v (%v), want the recorder's", series, err)
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

// dyingAttacker is a pool whose target dies in any trial at killAt req/s
// or more, as java-virtual died of OutOfMemoryError at 6,400 req/s.
type dyingAttacker struct {
	*poolAttacker
	rt     *fakeRuntime
	killAt float64
}

func (a *dyingAttacker) Run(ctx context.Context, url string, plan bench.Plan, obs bench.Observer) (*bench.AttackResult, error) {
	res, err := a.poolAttacker.Run(ctx, url, plan, obs)
	if err == nil && plan.Profile.Stages[0].Rate >= a.killAt {
		a.rt.killLatest()
	}
	return res, err
}

// A target that dies in a trial is started again, checked and recorded as
// the first was, and warmed up again before the next trial: the trial is a
// failure that says how it died, the search goes on below it, and the run
// succeeds with its answer; the dead container and the last are both
// stopped, and the recordings of both are kept on the search's clock.
func TestExecute_CapacityTargetDies(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	rt := &fakeRuntime{}
	att := &dyingAttacker{poolAttacker: &poolAttacker{capacity: 400}, rt: rt, killAt: 800}
	rec := &searchRecorder{}
	r := runner.New(runner.Config{Targets: rt, Store: st, Series: st, Attacker: att, Recorder: rec,
		LockPath: t.TempDir() + "/attack.lock", CPUs: 1})
	run := createRun(t, st, capacitySpec(t, "go"))
	if err := r.Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	got, err := st.FindRunByID(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	tr := got.Target("go")
	if tr.Status != bench.TargetSucceeded || tr.Capacity == nil {
		t.Fatalf("go %s %q capacity %v, want the search's answer", tr.Status, tr.Error, tr.Capacity)
	}
	if c := tr.Capacity; c.Rate > 400 || c.Rate < 392 {
		t.Errorf("capacity %.0f req/s (%s), want about 400 found below the death", c.Rate, c.Reason)
	}
	died := -1
	for i, s := range tr.Stages {
		if s.Died != "" {
			if died >= 0 {
				t.Errorf("stages %d and %d died: the target was started again once", died, i)
			}
			died = i
		}
	}
	if died < 0 || tr.Stages[died].Rate < 800 || tr.Stages[died].Died != "container exited with code 3 during the attack: fatal: out of memory" {
		t.Fatalf("died in stage %d: %+v", died, tr.Stages)
	}
	step := tr.Capacity.Steps[died]
	if step.Pass || len(step.Violations) != 1 || !strings.HasPrefix(step.Violations[0], "the target died: container exited with code 3") {
		t.Errorf("the trial it died in judged %+v, want a failure saying so", step)
	}
	for i, p := range att.plans {
		if warm := !p.Warmup.Disabled; warm != (i == 0 || i == died+1) {
			t.Errorf("trial %d warmed up: %v, want the first and the one after the death only", i, warm)
		}
	}
	if fmt.Sprint(rt.started) != "[go go]" || fmt.Sprint(rt.stoppedTargets()) != "[go go]" {
		t.Errorf("started %v, stopped %v: want the dead one and the new one both started and stopped", rt.started, rt.stoppedTargets())
	}
	if rec.records != 2 || len(rec.t0s) != 2 || !rec.t0s[0].Equal(rec.t0s[1]) {
		t.Errorf("recorder started %d times with zeros %v: want twice, on the search's one clock", rec.records, rec.t0s)
	}
	if len(tr.Resources) != len(tr.Stages) {
		t.Errorf("%d stages' resources kept for %d trials: want every one, across both recordings", len(tr.Resources), len(tr.Stages))
	}
	series, err := st.FindSeries(context.Background(), got.ID, tr.Key(), []string{"container_cpu_usage_ratio"})
	if err != nil || len(series) != 1 || len(series[0].Points) != 4 {
		t.Errorf("stored series %+v (%v), want one, both recordings' points in it", series, err)
	}
}

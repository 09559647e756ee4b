package runner

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/steady"
)

// warmUntilSteady sends the load of the first measured stage until its
// throughput and p50 stop trending over the warm-up's window, or until its
// maximum. It returns the warm-up as a stage kept apart (its StartOffset
// from its own clock's zero, t0, until the measured attack's is known) and
// how it ended.
func (r *Runner) warmUntilSteady(ctx context.Context, baseURL string, spec bench.RunSpec, obs bench.Observer) (warm *bench.StageResult, t0 time.Time, outcome *bench.WarmupSteady, err error) {
	w := spec.Warmup
	plan := bench.Plan{Workload: spec.Workload, Profile: warmupProfile(spec.Profile, w.MaxDuration, w.Fraction), Warmup: bench.Warmup{Disabled: true}}
	watch := steady.NewWatcher(int(w.Window.D() / time.Second))
	warmCtx, stop := context.WithCancel(ctx)
	defer stop()
	warmObs := bench.Observer{
		Start: obs.Start,
		Stage: func(s bench.StageResult) {
			s.Warmup, s.Index, s.Name = true, warmupIndex, warmupName
			if obs.Stage != nil {
				obs.Stage(s)
			}
		},
		Second: func(b bench.Bucket) {
			if watch.Add(b) {
				stop()
			}
		},
	}
	started := time.Now()
	res, err := r.cfg.Attacker.Run(warmCtx, baseURL, plan, warmObs)
	if ctx.Err() != nil || err != nil && !errors.Is(err, context.Canceled) {
		return nil, t0, nil, err
	}
	if res != nil {
		t0 = res.T0
	}
	outcome = &bench.WarmupSteady{Seconds: time.Since(started).Seconds(), Steady: warmCtx.Err() != nil, MaxDuration: w.MaxDuration}
	if !outcome.Steady {
		outcome.Figure, outcome.Trend = watch.Last().Figure, watch.Last().Trend
	}
	return warmupStage(res), t0, outcome, nil
}

// The index and name a warm-up stage carries, as the load engine's own.
const (
	warmupIndex = -1
	warmupName  = "warm-up"
)

// warmupProfile is the first stage's load (its end load when it is a
// ramp), scaled by fraction (0 for all of it), held for at most longest.
func warmupProfile(p bench.Profile, longest bench.Duration, fraction float64) bench.Profile {
	first := p.Stages[0]
	first.Name, first.Ramp, first.Duration = warmupName, false, longest
	if fraction > 0 && fraction < 1 {
		if first.Rate > 0 {
			first.Rate = math.Max(first.Rate*fraction, bench.MinRate)
		}
		if first.Concurrency > 0 {
			first.Concurrency = max(int(math.Round(float64(first.Concurrency)*fraction)), 1)
		}
	}
	p.Stages = []bench.Stage{first}
	return p
}

// warmupStage is the warm-up attack's one stage, marked as a warm-up.
func warmupStage(res *bench.AttackResult) *bench.StageResult {
	if res == nil || len(res.Stages) == 0 {
		return nil
	}
	s := res.Stages[0]
	s.Warmup, s.Index, s.Name = true, warmupIndex, warmupName
	s.Duration = s.Stats.Elapsed
	return &s
}

// jitSeries is Micrometer's accumulated JIT compilation time, in ms.
const jitSeries = "jvm_compilation_time_ms_total"

// noteJIT adds to a warm-up until steady the JVM's compilation time during
// it and during the measured profile, read from the recorded series (on
// the measured attack's clock, so the warm-up is before 0).
func noteJIT(ws *bench.WarmupSteady, series []bench.Series) {
	for _, s := range series {
		if s.Name != jitSeries || len(s.Points) == 0 {
			continue
		}
		first, last := s.Points[0].V, s.Points[len(s.Points)-1].V
		atZero := first
		for _, p := range s.Points {
			if p.T <= 0 {
				atZero = p.V
			}
		}
		warm, measured := atZero-first, last-atZero
		ws.JITMs, ws.JITMsMeasured = &warm, &measured
		return
	}
}

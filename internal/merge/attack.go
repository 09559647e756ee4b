package merge

import (
	"fmt"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// Attack merges the results of generators that each sent a share of plan
// (names name them, in the same order) into the result of the whole plan:
// the warm-up, every stage, the total, each request and each second, the
// stages described as the plan asks them (its rates and clients, not a
// share's). Where a generator was cancelled before another, only the
// stages and seconds every one of them reached are kept, so that each
// figure covers the same stretch for all. T0 is left for the caller, who
// knows the clocks.
func Attack(plan bench.Plan, names []string, parts ...*bench.AttackResult) (*bench.AttackResult, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("merge: no results")
	}
	res := &bench.AttackResult{T0: parts[0].T0}
	var err error
	if res.Warmup, err = warmup(plan, names, parts); err != nil {
		return nil, fmt.Errorf("merge the warm-up: %w", err)
	}
	for i := range common(parts, func(r *bench.AttackResult) int { return len(r.Stages) }) {
		st, err := stage(plan, names, parts, func(r *bench.AttackResult) bench.StageResult { return r.Stages[i] })
		if err != nil {
			return nil, fmt.Errorf("merge stage %d: %w", i, err)
		}
		res.Stages = append(res.Stages, st)
	}
	if res.Total, res.Requests, err = total(parts); err != nil {
		return nil, fmt.Errorf("merge the total: %w", err)
	}
	for b := range common(parts, func(r *bench.AttackResult) int { return len(r.Seconds) }) {
		second, err := Buckets(pick(parts, func(r *bench.AttackResult) bench.Bucket { return r.Seconds[b] })...)
		if err != nil {
			return nil, fmt.Errorf("merge second %d: %w", b, err)
		}
		res.Seconds = append(res.Seconds, second)
	}
	return res, nil
}

// common is the fewest of something every part has.
func common(parts []*bench.AttackResult, count func(*bench.AttackResult) int) int {
	n := count(parts[0])
	for _, p := range parts[1:] {
		n = min(n, count(p))
	}
	return n
}

// pick takes the same piece of each part.
func pick[T any](parts []*bench.AttackResult, of func(*bench.AttackResult) T) []T {
	out := make([]T, len(parts))
	for i, p := range parts {
		out[i] = of(p)
	}
	return out
}

// warmup merges the warm-ups, when every part has one.
func warmup(plan bench.Plan, names []string, parts []*bench.AttackResult) (*bench.StageResult, error) {
	for _, p := range parts {
		if p.Warmup == nil {
			return nil, nil
		}
	}
	w, err := stage(plan, names, parts, func(r *bench.AttackResult) bench.StageResult { return *r.Warmup })
	return &w, err
}

// stage merges one stage (or the warm-up) of every part: its figures, its
// requests', its generators' self-watch and flags; its level is the plan's.
func stage(plan bench.Plan, names []string, parts []*bench.AttackResult, of func(*bench.AttackResult) bench.StageResult) (bench.StageResult, error) {
	stages := pick(parts, of)
	out := stages[0]
	out.Rate, out.Concurrency = Level(plan, out)
	stats, elapsed := make([]bench.Stats, len(stages)), time.Duration(0)
	gens, flags := make([]*bench.Generator, len(stages)), make([][]bench.Flag, len(stages))
	for i, s := range stages {
		stats[i], gens[i], flags[i] = s.Stats, s.Generator, s.Flags
		elapsed = max(elapsed, s.Stats.Elapsed.D())
	}
	var err error
	if out.Stats, err = Stats(elapsed, stats...); err != nil {
		return out, err
	}
	if out.Requests, err = named(elapsed, pick(parts, func(r *bench.AttackResult) []bench.NamedStats { return of(r).Requests })); err != nil {
		return out, err
	}
	out.Generator, out.Flags = Generators(gens...), Flags(names, flags...)
	return out, nil
}

// Level is the rate or clients the plan asks of a stage (or of its
// warm-up), whose share a generator's stage result describes.
func Level(plan bench.Plan, s bench.StageResult) (rate float64, clients int) {
	switch {
	case s.Warmup && plan.Warmup.UntilSteady:
		st := plan.Warmup.SteadyStage(plan.Profile)
		return st.Rate, st.Concurrency
	case s.Warmup:
		return plan.Warmup.Rate, 0
	case s.Index >= 0 && s.Index < len(plan.Profile.Stages):
		st := plan.Profile.Stages[s.Index]
		return st.Rate, st.Concurrency
	}
	return s.Rate, s.Concurrency
}

// named merges the per-request figures of one window, request by request.
func named(elapsed time.Duration, parts [][]bench.NamedStats) ([]bench.NamedStats, error) {
	var out []bench.NamedStats
	for k := range len(parts[0]) {
		windows := make([]bench.Stats, 0, len(parts))
		for _, p := range parts {
			if k >= len(p) || p[k].Name != parts[0][k].Name {
				return nil, fmt.Errorf("the generators' requests differ: %d is %q in the first", k, parts[0][k].Name)
			}
			windows = append(windows, p[k].Stats)
		}
		st, err := Stats(elapsed, windows...)
		if err != nil {
			return nil, fmt.Errorf("request %s: %w", parts[0][k].Name, err)
		}
		out = append(out, bench.NamedStats{Name: parts[0][k].Name, Stats: st})
	}
	return out, nil
}

// total merges the whole attack's figures and its requests'.
func total(parts []*bench.AttackResult) (bench.Stats, []bench.NamedStats, error) {
	var elapsed time.Duration
	for _, p := range parts {
		elapsed = max(elapsed, p.Total.Elapsed.D())
	}
	st, err := Stats(elapsed, pick(parts, func(r *bench.AttackResult) bench.Stats { return r.Total })...)
	if err != nil {
		return st, nil, err
	}
	reqs, err := named(elapsed, pick(parts, func(r *bench.AttackResult) []bench.NamedStats { return r.Requests }))
	return st, reqs, err
}

// Buckets merges the generators' parts of one second: its figures, the
// requests the schedule asked of each, and their self-watch.
func Buckets(parts ...bench.Bucket) (bench.Bucket, error) {
	out := parts[0]
	out.Scheduled = 0
	stats, gens := make([]bench.Stats, len(parts)), make([]*bench.Generator, len(parts))
	var elapsed time.Duration
	for i, p := range parts {
		if p.Second != out.Second {
			return out, fmt.Errorf("second %d merged with second %d", out.Second, p.Second)
		}
		stats[i], gens[i] = p.Stats, p.Generator
		out.Scheduled += p.Scheduled
		elapsed = max(elapsed, p.Stats.Elapsed.D())
	}
	var err error
	out.Stats, err = Stats(elapsed, stats...)
	out.Generator = Generators(gens...)
	return out, err
}

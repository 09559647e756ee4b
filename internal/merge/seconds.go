package merge

import (
	"fmt"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// Seconds merges what generators reported second by second when not all
// of them returned their results (one died): the seconds every one of
// them reported, merged, and the stages and total those seconds make, as
// far as they went, each stage described as the plan asks it. Latencies
// are filed by the second a request was sent in, so a stage's histogram
// is its seconds' merged; a request whose second was reported before it
// came back counts without its latency, as in the seconds themselves.
func Seconds(plan bench.Plan, seconds ...[]bench.Bucket) (*bench.AttackResult, error) {
	res := &bench.AttackResult{}
	n := len(seconds[0])
	for _, s := range seconds[1:] {
		n = min(n, len(s))
	}
	for b := range n {
		parts := make([]bench.Bucket, len(seconds))
		for i, s := range seconds {
			parts[i] = s[b]
		}
		merged, err := Buckets(parts...)
		if err != nil {
			return nil, err
		}
		res.Seconds = append(res.Seconds, merged)
	}
	var err error
	if res.Stages, err = stagesOf(plan, res.Seconds); err != nil {
		return nil, err
	}
	res.Total, _, err = window(res.Seconds)
	return res, err
}

// stagesOf makes the stages the seconds reach, in the plan's order.
func stagesOf(plan bench.Plan, seconds []bench.Bucket) ([]bench.StageResult, error) {
	var out []bench.StageResult
	var offset time.Duration
	for i, st := range plan.Profile.Stages {
		var in []bench.Bucket
		for _, b := range seconds {
			if b.Stage == i {
				in = append(in, b)
			}
		}
		s := bench.StageResult{Index: i, Name: st.Name, Model: plan.Profile.Model, StartOffset: bench.Duration(offset),
			Duration: st.Duration, Rate: st.Rate, Concurrency: st.Concurrency}
		offset += st.Duration.D()
		if len(in) == 0 {
			break
		}
		var err error
		if s.Stats, s.Generator, err = window(in); err != nil {
			return nil, fmt.Errorf("stage %d: %w", i, err)
		}
		if s.Generator != nil {
			s.Flags = s.Generator.Flags(s.Stats.Elapsed.D().Seconds())
		}
		out = append(out, s)
	}
	return out, nil
}

// window adds seconds that follow each other into the window they make,
// and the generators' self-watch over it: second by second the busiest
// generator's CPU share and the hypervisor's steal, averaged over the
// window, the highest peaks and lags, late and dropped requests added, the
// most connections.
func window(seconds []bench.Bucket) (bench.Stats, *bench.Generator, error) {
	stats, gens := make([]bench.Stats, len(seconds)), make([]*bench.Generator, len(seconds))
	var elapsed time.Duration
	var busy, stolen float64 // CPU share × seconds, steal share × seconds
	for i, b := range seconds {
		stats[i], gens[i] = b.Stats, b.Generator
		elapsed += b.Stats.Elapsed.D()
		if b.Generator != nil {
			busy += b.Generator.CPUShare * b.Stats.Elapsed.D().Seconds()
			stolen += b.Generator.StealShare * b.Stats.Elapsed.D().Seconds()
		}
	}
	st, err := Stats(elapsed, stats...)
	g := Generators(gens...)
	if g != nil && elapsed > 0 {
		g.CPUShare, g.StealShare, g.Connections = busy/elapsed.Seconds(), stolen/elapsed.Seconds(), 0
		for _, p := range gens {
			if p != nil {
				g.Connections = max(g.Connections, p.Connections)
			}
		}
	}
	return st, g, err
}

package analysis

import (
	"fmt"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
	"github.com/threadbench/threadbench/internal/units"
)

// CapacityTable is a capacity run's answer across its targets: per target the
// highest confirmed rate with its confirmations' spread, the first failing
// rate and why, and the ratio to the best target, with a sentence each.
// It is nil for a run without a capacity search.
func CapacityTable(run *bench.Run) *bench.CapacityTable {
	var t bench.CapacityTable
	best := 0.0
	for _, tr := range run.Targets {
		if tr.Capacity == nil {
			continue
		}
		t.Objective = tr.Capacity.Objective
		r := capacityRow(tr.Key(), tr.Capacity)
		if threads, ok := tr.PoolThreads(); ok {
			if rate, _, known := bench.PoolBound(threads, caseWorkload(run.Spec, tr.Case)); known {
				r.PoolThreads, r.PoolRate = threads, rate
			}
		}
		r.CPUShare, r.CPUs = confirmedCPU(tr)
		t.Rows = append(t.Rows, r)
		best = max(best, tr.Capacity.Rate)
	}
	if len(t.Rows) == 0 {
		return nil
	}
	for i := range t.Rows {
		if best > 0 {
			t.Rows[i].Ratio = t.Rows[i].Rate / best
		}
		t.Sentences = append(t.Sentences, capacityRowSentence(t.Rows[i], t.Objective))
		if note := t.Rows[i].PauseNote; note != "" {
			t.Sentences = append(t.Sentences, fmt.Sprintf("%s: %s.", t.Rows[i].Target, note))
		}
	}
	return &t
}

// caseWorkload is the workload a case ran under ("" for a run of targets).
func caseWorkload(spec bench.RunSpec, caseName string) bench.Workload {
	for _, c := range spec.Cases {
		if c.Name == caseName && caseName != "" {
			return spec.ForCase(c).Workload
		}
	}
	return spec.Workload
}

func capacityRow(target string, c *bench.CapacityResult) bench.CapacityRow {
	r := bench.CapacityRow{Target: target, Rate: c.Rate, Stop: c.Stop, Reason: c.Reason,
		Passed: c.Passed(), Ran: len(c.Confirmations), MustPass: c.MustPass,
		Rule: c.Rule, Pooled: c.Pooled, Unconfirmed: c.Unconfirmed, PauseNote: c.PauseNote}
	for i, conf := range c.Confirmations {
		if i == 0 || conf.Throughput < r.ServedLow {
			r.ServedLow = conf.Throughput
		}
		r.ServedHigh = max(r.ServedHigh, conf.Throughput)
		if c.Asked > 0 && !conf.Pass && c.Unconfirmed == "" {
			r.Misses = append(r.Misses, strings.Join(conf.Violations, ", "))
		}
	}
	if f := c.Failed; f != nil {
		r.FailedRate, r.FailedWhy = f.Rate, strings.Join(f.Violations, ", ")
		if f.GeneratorBound != "" {
			r.FailedWhy = "generator-bound: " + f.GeneratorBound
		}
	}
	return r
}

// capacityRowSentence says a row in words, e.g. "java-platform carries 980 req/s
// within p99<=300ms (3 confirmations served 975–982 req/s); 1000 req/s
// failed: p99 412ms > 300ms."
func capacityRowSentence(r bench.CapacityRow, objective string) string {
	if r.Rate == 0 {
		return fmt.Sprintf("%s: no rate confirmed within %s; %s.", r.Target, objective, r.Reason)
	}
	if r.Unconfirmed != "" {
		return fmt.Sprintf("%s: %s req/s within %s %s (a lower confidence); %s.", r.Target, units.Rate(r.Rate), objective, r.Unconfirmed, r.Reason)
	}
	if r.Rule == bench.RulePooled && r.Pooled != nil {
		return capacityPooledSentence(r, objective)
	}
	return capacityWindowSentence(r, objective)
}

// capacityPooledSentence says a row answered by the pooled rule: how many windows
// held and the percentile over their time together.
func capacityPooledSentence(r bench.CapacityRow, objective string) string {
	p := r.Pooled
	s := fmt.Sprintf("%s carries %s req/s within %s over its confirmations pooled (%d of %d windows held; pooled p99 %s over %s; they served %s–%s req/s)",
		r.Target, units.Rate(r.Rate), objective, p.Held, p.Windows, units.Ms(p.P99), p.Duration, units.Rate(r.ServedLow), units.Rate(r.ServedHigh))
	return s + capacityBounds(r)
}

// capacityWindowSentence says a row answered window by window.
func capacityWindowSentence(r bench.CapacityRow, objective string) string {
	s := fmt.Sprintf("%s carries %s req/s within %s (confirmations served %s–%s req/s)",
		r.Target, units.Rate(r.Rate), objective, units.Rate(r.ServedLow), units.Rate(r.ServedHigh))
	if len(r.Misses) > 0 {
		s = fmt.Sprintf("%s carries %s req/s within %s (%d of %d confirmations passed, %d asked to; they served %s–%s req/s; %s)",
			r.Target, units.Rate(r.Rate), objective, r.Passed, r.Ran, r.MustPass, units.Rate(r.ServedLow), units.Rate(r.ServedHigh), capacityMissWords(r.Misses))
	}
	if r.Rule == bench.RuleWindows {
		s += fmt.Sprintf(", judged window by window (%d had to pass each)", r.MustPass)
		if r.Pooled != nil {
			s += fmt.Sprintf("; pooled p99 %s over %s", units.Ms(r.Pooled.P99), r.Pooled.Duration)
		}
	}
	return s + capacityBounds(r)
}

// capacityBounds says what bounds a row's answer (a pool, the CPU), what failed
// above it, and why the search stopped when not on its precision.
func capacityBounds(r bench.CapacityRow) string {
	s := ""
	switch {
	case r.PoolRate > 0 && r.Rate >= poolNear*r.PoolRate:
		s += fmt.Sprintf(", bounded by its %d-thread pool (%s allowed)", r.PoolThreads, units.Rate(r.PoolRate))
	case r.PoolRate > 0:
		s += fmt.Sprintf(", below its %d-thread pool's bound (%s allowed)", r.PoolThreads, units.Rate(r.PoolRate))
	}
	if r.CPUShare >= cpuNear {
		s += fmt.Sprintf(", bounded by its CPU (%.0f %% of its %s in the confirmations)", r.CPUShare*100, units.CPUs(r.CPUs))
	}
	if r.FailedRate > 0 {
		s += fmt.Sprintf("; %s req/s failed: %s", units.Rate(r.FailedRate), r.FailedWhy)
	}
	if r.Stop != string(capacity.StopPrecision) {
		s += "; " + r.Reason
	}
	return s + "."
}

// capacityMissWords says what failed in the confirmations at the answer that did
// not pass.
func capacityMissWords(misses []string) string {
	if len(misses) == 1 {
		return "the other failed: " + misses[0]
	}
	return "the others failed: " + strings.Join(misses, "; ")
}

// poolNear is how close to its pool's bound an answer is bounded by it,
// and cpuNear how much of its CPU limit its confirmations must use.
const (
	poolNear = 0.9
	cpuNear  = 0.9
)

// confirmedCPU is the CPU a target used in its confirmations, as a share
// of its CPU limit (the mean of theirs), and that limit: from the CPU
// seconds per 1,000 requests its metrics recorded in each. 0 when either
// is unknown.
func confirmedCPU(tr bench.TargetResult) (share, limit float64) {
	if tr.Limits.CPUs <= 0 {
		return 0, 0
	}
	var sum float64
	var n int
	for _, conf := range tr.Capacity.Confirmations {
		st, res, ok := capacityStageOf(tr, conf.Stage)
		if !ok || res.CPUSecondsPer1k <= 0 || st.Duration <= 0 {
			continue
		}
		cpuSeconds := res.CPUSecondsPer1k * float64(st.Stats.Successes) / 1000
		sum += cpuSeconds / st.Duration.D().Seconds() / tr.Limits.CPUs
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), tr.Limits.CPUs
}

// capacityStageOf returns a result's measured stage index with its resources.
func capacityStageOf(tr bench.TargetResult, index int) (bench.StageResult, bench.StageResources, bool) {
	for _, st := range tr.Stages {
		if st.Index != index || st.Warmup {
			continue
		}
		for _, res := range tr.Resources {
			if res.Stage == index && !res.Warmup {
				return st, res, true
			}
		}
	}
	return bench.StageResult{}, bench.StageResources{}, false
}

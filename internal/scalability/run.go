package scalability

import (
	"fmt"
	"math"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// FitRun fits the USL to each target of a closed-model run whose stages
// hold at least MinPoints distinct concurrencies (a sweep), from each
// stage's throughput. It returns nil for any other run.
func FitRun(run *bench.Run) []bench.ScalabilityFit {
	if !run.Spec.Profile.LoadModel().LittleBound() {
		return nil
	}
	var fits []bench.ScalabilityFit
	for _, tr := range run.Targets {
		var pts []Point
		for _, st := range tr.Stages {
			if st.Concurrency > 0 && st.Stats.Throughput > 0 {
				pts = append(pts, Point{Concurrency: float64(st.Concurrency), Throughput: st.Stats.Throughput})
			}
		}
		m, err := Fit(pts)
		if err != nil {
			continue // not a sweep, or a target that failed early
		}
		f := m.Summary(tr.Key())
		if threads, ok := tr.PoolThreads(); ok {
			if bound, _, known := bench.PoolBound(threads, run.Spec.Workload); known && f.MaxThroughput > bound*(1+overshoot) {
				f.Sentence = strings.TrimSuffix(f.Sentence, ".") + fmt.Sprintf(
					"; the predicted maximum is %.0f%% above its %d-thread pool's %.0f req/s, which it cannot pass: a pool's hard ceiling is a step the smooth law rounds over.",
					(f.MaxThroughput/bound-1)*100, threads, bound)
			}
		}
		fits = append(fits, f)
	}
	return fits
}

// overshoot is how far a fit's predicted maximum may pass a known ceiling
// before the sentence says so.
const overshoot = 0.02

// Summary is the fit as a report shows it; an unbounded peak or maximum
// is written as 0, which JSON can carry.
func (m *Model) Summary(target string) bench.ScalabilityFit {
	f := bench.ScalabilityFit{Target: target, Points: len(m.Points), Sigma: m.Sigma, Kappa: m.Kappa, Lambda: m.Lambda,
		R2: m.R2, Poor: m.Poor}
	if !math.IsInf(m.Peak, 0) {
		f.Peak = m.Peak
	}
	if !math.IsInf(m.MaxThroughput, 0) {
		f.MaxThroughput = m.MaxThroughput
	}
	f.Sentence = m.sentence(target)
	for _, p := range m.Points {
		f.Measured = append(f.Measured, bench.ScalabilityPoint(p))
	}
	return f
}

func (m *Model) sentence(target string) string {
	s := fmt.Sprintf("%s: contention σ %.4f, coherency κ %.6f, one client %.1f req/s", target, m.Sigma, m.Kappa, m.Lambda)
	switch {
	case !math.IsInf(m.Peak, 0):
		s += fmt.Sprintf("; throughput peaks at N* %.0f clients, %.0f req/s", m.Peak, m.MaxThroughput)
	case !math.IsInf(m.MaxThroughput, 0):
		s += fmt.Sprintf("; no peak, throughput levels off towards %.0f req/s", m.MaxThroughput)
	default:
		s += "; it scales linearly over the sweep"
	}
	s += fmt.Sprintf(" (R² %.3f over %d points)", m.R2, len(m.Points))
	if m.Poor != "" {
		s += "; too poor a fit to use: " + m.Poor
	}
	return s + "."
}

// Curve samples a fit's throughput at n clients from 1 to the most it
// measured, for drawing beside the points.
func Curve(f bench.ScalabilityFit, n int) []bench.ScalabilityPoint {
	top := 1.0
	for _, p := range f.Measured {
		top = max(top, p.Concurrency)
	}
	curve := make([]bench.ScalabilityPoint, n)
	for i := range curve {
		c := 1 + (top-1)*float64(i)/float64(max(n-1, 1))
		curve[i] = bench.ScalabilityPoint{Concurrency: c, Throughput: usl(f.Sigma, f.Kappa, f.Lambda, c)}
	}
	return curve
}

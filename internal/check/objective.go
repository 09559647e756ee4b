package check

import (
	"slices"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
)

// FieldObjective is the flag an objective is given by, which its errors name.
const FieldObjective = "--objective"

// FigureThroughput and FigureErrors are the figures an objective bounds
// besides the latency percentiles of bench.ParseObjective.
const (
	FigureThroughput = "throughput"
	FigureErrors     = string(bench.MetricErrors)
	// FigureCapacity is a capacity search's answer (req/s), bounded from
	// below: the run must be a search (the spec's capacity).
	FigureCapacity = "capacity"
)

// Objective is what one target (or case) of a run must meet, such as
// "go:throughput>=100,p99<=250ms,errors<=1%": every term must hold.
type Objective struct {
	Target string `json:"target"`
	Terms  []Term `json:"terms"`
}

// Term bounds one whole-attack figure of the run's report: throughput from
// below (req/s), a latency percentile (ms) or the error rate (percent of
// the requests, dropped ones among them) from above; or a capacity
// search's answer from below (req/s).
type Term struct {
	Figure  string  `json:"figure"`  // throughput, p50, p90, p95, p99, p999, errors or capacity
	AtLeast bool    `json:"atLeast"` // the figure must be at least Bound; else at most
	Bound   float64 `json:"bound"`
	Unit    string  `json:"unit"` // req/s, ms or %
}

// ParseObjective reads "TARGET:TERM,TERM...": throughput>=N and
// capacity>=N (req/s), and
// the terms bench.ParseObjective reads (p50...p999<=DURATION,
// errors<=SHARE); drops are not a figure of the report, and count among
// the errors. An error names FieldObjective and the term at fault.
func ParseObjective(s string) (Objective, error) {
	target, terms, ok := strings.Cut(s, ":")
	target = strings.TrimSpace(target)
	if !ok || target == "" {
		return Objective{}, bench.FieldErrorf(FieldObjective, "%q: want TARGET:TERMS, e.g. go:throughput>=100,p99<=250ms,errors<=1%%", s)
	}
	o := Objective{Target: target}
	for _, text := range strings.Split(terms, ",") {
		term, err := parseTerm(strings.TrimSpace(text))
		if err != nil {
			return Objective{}, err
		}
		if slices.ContainsFunc(o.Terms, func(t Term) bool { return t.Figure == term.Figure }) {
			return Objective{}, bench.FieldErrorf(FieldObjective, "%q: %s is bounded twice", s, term.Figure)
		}
		o.Terms = append(o.Terms, term)
	}
	return o, nil
}

func parseTerm(text string) (Term, error) {
	for _, floor := range []string{FigureThroughput, FigureCapacity} {
		if rest, ok := strings.CutPrefix(text, floor); ok {
			return parseFloor(floor, text, rest)
		}
	}
	parsed, err := bench.ParseObjective(text)
	if err != nil {
		return Term{}, renamed(err)
	}
	b := parsed.Terms[0]
	switch {
	case b.Metric == bench.MetricDrops:
		return Term{}, bench.FieldErrorf(FieldObjective, "%q: a check bounds errors, which count the dropped requests too", text)
	case b.Metric.IsLatency():
		return Term{Figure: string(b.Metric), Bound: b.Max, Unit: analysis.UnitMs}, nil
	}
	return Term{Figure: FigureErrors, Bound: b.Max * 100, Unit: analysis.UnitPercent}, nil
}

// parseFloor reads the rest of "throughput>=100" or "capacity>=100" (req/s
// may follow).
func parseFloor(figure, text, rest string) (Term, error) {
	value, ok := strings.CutPrefix(strings.TrimSpace(rest), ">=")
	if !ok {
		value, ok = strings.CutPrefix(strings.TrimSpace(rest), ">")
	}
	value = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(value), analysis.UnitReqPerSec))
	v, err := strconv.ParseFloat(value, 64)
	if !ok || err != nil || !(v > 0) {
		return Term{}, bench.FieldErrorf(FieldObjective, "%q: want %s>=N, N a positive rate in req/s", text, figure)
	}
	return Term{Figure: figure, AtLeast: true, Bound: v, Unit: analysis.UnitReqPerSec}, nil
}

// renamed gives an error of bench's objective parser the check's field.
func renamed(err error) error {
	return bench.FieldErrorf(FieldObjective, "%s", strings.TrimPrefix(bench.ErrorMessage(err), "objective: "))
}

// String writes the objective back as ParseObjective reads it.
func (o Objective) String() string {
	terms := make([]string, len(o.Terms))
	for i, t := range o.Terms {
		terms[i] = t.String()
	}
	return o.Target + ":" + strings.Join(terms, ",")
}

// String writes the term as "throughput>=100", "p99<=250ms" or
// "errors<=1%", bounds from above as bench writes them.
func (t Term) String() string {
	if t.AtLeast {
		return t.Figure + ">=" + strconv.FormatFloat(t.Bound, 'g', 6, 64)
	}
	max := t.Bound
	if t.Unit == analysis.UnitPercent {
		max /= 100
	}
	return bench.Term{Metric: bench.Metric(t.Figure), Max: max}.String()
}

// holds says whether a measured figure meets the term.
func (t Term) holds(measured float64) bool {
	if t.AtLeast {
		return measured >= t.Bound
	}
	return measured <= t.Bound
}

// measure is the term's figure in a subject's whole-attack figures.
func (t Term) measure(f bench.Figures) float64 {
	switch bench.Metric(t.Figure) {
	case bench.MetricP50:
		return f.Latency.P50.Value
	case bench.MetricP90:
		return f.Latency.P90.Value
	case bench.MetricP95:
		return f.Latency.P95.Value
	case bench.MetricP99:
		return f.Latency.P99.Value
	case bench.MetricP999:
		return f.Latency.P999.Value
	case bench.MetricErrors:
		return f.ErrorRate.Value
	}
	return f.Throughput.Value
}

// CheckTargets refuses an objective whose target is not among the run's
// subjects (SubjectLabels), or that bounds a capacity in a run that
// searches none, naming FieldObjective.
func CheckTargets(objectives []Objective, subjects []string, searches bool) error {
	for _, o := range objectives {
		if !slices.Contains(subjects, o.Target) {
			return bench.FieldErrorf(FieldObjective, "%q: the run has no target %q (it has %s)", o.String(), o.Target, strings.Join(subjects, ", "))
		}
		if !searches && slices.ContainsFunc(o.Terms, func(t Term) bool { return t.Figure == FigureCapacity }) {
			return bench.FieldErrorf(FieldObjective, "%q: capacity>= bounds a capacity search's answer, and the spec searches none (give it capacity: {objective: ...})", o.String())
		}
	}
	return nil
}

// SubjectLabels are the names a prepared spec's results go by, which an
// objective names: its cases', or else its targets'.
func SubjectLabels(spec bench.RunSpec) []string {
	if len(spec.Cases) == 0 {
		return slices.Clone(spec.Targets)
	}
	labels := make([]string, len(spec.Cases))
	for i, c := range spec.Cases {
		labels[i] = c.Name
	}
	return labels
}

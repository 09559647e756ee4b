package trend

import (
	"context"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/check"
)

// The fields of a Query, as the CLI's flags, the API's parameters and
// errors name them.
const (
	FieldName   = "name"
	FieldTarget = "target"
	FieldFigure = "figure"
	FieldLabel  = "label"
)

// Query asks for a trend: the runs of spec Name (carrying Label when it
// is set), the whole-attack figure Figure of their target Target.
type Query struct {
	Name, Target, Figure string
	Label                string // KEY=VALUE, or empty for every run of the name
}

// plan is a Query read: its figure and label.
type plan struct {
	figure     Figure
	key, value string
}

// parse checks every field of q, naming the first that is wrong.
func (q Query) parse() (plan, error) {
	var p plan
	switch {
	case strings.TrimSpace(q.Name) == "":
		return p, bench.FieldErrorf(FieldName, "missing: give the spec name whose runs to follow")
	case strings.TrimSpace(q.Target) == "":
		return p, bench.FieldErrorf(FieldTarget, "missing: give the target whose figure to follow, e.g. go")
	}
	fig, err := LookupFigure(q.Figure)
	if err != nil {
		return p, err
	}
	p.figure = fig
	if q.Label == "" {
		return p, nil
	}
	key, value, ok := strings.Cut(q.Label, "=")
	if !ok || strings.TrimSpace(key) == "" {
		return p, bench.FieldErrorf(FieldLabel, "%q: want KEY=VALUE, e.g. branch=main", q.Label)
	}
	p.key, p.value = strings.TrimSpace(key), value
	return p, nil
}

// Check refuses a query with a wrong field, naming it, before any run is
// read.
func (q Query) Check() error {
	_, err := q.parse()
	return err
}

// Read reads the trend q asks for from the history: every succeeded run
// named q.Name (carrying q.Label) that measured q.Target, oldest first,
// its figure over the whole attack as a report gives it (the median of
// rounds, with its interval), and the change points. No such run is an
// ENOTFOUND error.
func Read(ctx context.Context, h check.Runs, q Query, o Options) (Trend, error) {
	p, err := q.parse()
	if err != nil {
		return Trend{}, err
	}
	var points []Point
	err = check.EachNamed(ctx, h, q.Name, func(run *bench.Run) bool {
		if pt, ok := p.point(run, q.Target); ok {
			points = append(points, pt)
		}
		return true
	})
	if err != nil {
		return Trend{}, err
	}
	if len(points) == 0 {
		return Trend{}, bench.Errorf(bench.ENOTFOUND, "no succeeded run named %q%s measured target %q", q.Name, p.labelWords(), q.Target)
	}
	slices.Reverse(points) // newest first from the history
	t := Analyze(points, p.figure, o)
	t.Name, t.Target = q.Name, q.Target
	if p.key != "" {
		t.Label = map[string]string{p.key: p.value}
	}
	return t, nil
}

// point is run's figure of target, when the run carries the label and
// measured the target.
func (p plan) point(run *bench.Run, target string) (Point, bool) {
	if v, ok := run.Spec.Labels[p.key]; p.key != "" && (!ok || v != p.value) {
		return Point{}, false
	}
	if p.figure.of == nil {
		return searchPoint(run, target)
	}
	f, ok := check.WholeAttack(analysis.Analyze(run, analysis.ReportOptions{}))[target]
	if !ok || f.Requests == 0 {
		return Point{}, false
	}
	est := p.figure.of(f)
	return Point{RunID: run.ID, CreatedAt: run.CreatedAt, Labels: run.Spec.Labels, Value: est.Value, CI: est.CI}, true
}

// searchPoint is a capacity search's answer for target, confirmed or
// not (0 when no rate passed): a run that searched none gives no point.
func searchPoint(run *bench.Run, target string) (Point, bool) {
	i := slices.IndexFunc(run.Targets, func(tr bench.TargetResult) bool { return tr.Label() == target && tr.Capacity != nil })
	if i < 0 {
		return Point{}, false
	}
	return Point{RunID: run.ID, CreatedAt: run.CreatedAt, Labels: run.Spec.Labels, Value: run.Targets[i].Capacity.Rate}, true
}

func (p plan) labelWords() string {
	if p.key == "" {
		return ""
	}
	return " carrying " + p.key + "=" + p.value
}

package web

import (
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// funcs are the templates' helpers: formatting only.
var funcs = template.FuncMap{
	"num":     formatNum,
	"when":    formatTime,
	"whenPtr": formatTimePtr,
	"took":    took,
	"targets": summaryTargets,
	"lower":   strings.ToLower,
	"join":    strings.Join,
	"add":     func(a, b int) int { return a + b },
	"finished": func(s bench.RunStatus) bool {
		return s.Finished()
	},
	"paramHint": paramHint,
	"errFor":    errFor,
	"errOther":  errOther,
}

// errFor returns the fault if it is the named field's, for the form to show
// next to that field.
func errFor(fault *errorView, field string) *errorView {
	if fault != nil && fault.Field == field {
		return fault
	}
	return nil
}

// errOther returns the fault if it is of none of the fields the form
// shows, for the form to show at its top.
func errOther(fault *errorView, fields ...string) *errorView {
	if fault == nil {
		return nil
	}
	for _, f := range fields {
		if fault.Field == f {
			return nil
		}
	}
	return fault
}

// formatNum writes a figure with the precision it deserves: integers
// plainly, below 10 with two decimals, else one.
func formatNum(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "-"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// formatTime is a time in UTC to the second.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
}

func formatTimePtr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return formatTime(*t)
}

// took is how long a run took from its start to its end, "-" before.
func took(s bench.RunSummary) string {
	if s.StartedAt == nil || s.FinishedAt == nil {
		return "-"
	}
	return s.FinishedAt.Sub(*s.StartedAt).Round(time.Second).String()
}

// paramHint describes an endpoint's parameters: "duration=0..60000 ms".
func paramHint(e bench.Endpoint) string {
	parts := make([]string, len(e.Params))
	for i, p := range e.Params {
		parts[i] = p.Name + "=" + p.Range()
		if p.Unit != "" {
			parts[i] += " " + p.Unit
		}
	}
	return strings.Join(parts, ", ")
}

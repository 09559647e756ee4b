package web

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

// compareChoices is how many of the latest finished runs the pickers offer.
const compareChoices = 100

// finishedStatuses are the statuses of runs that have results to compare.
var finishedStatuses = []bench.RunStatus{bench.RunSucceeded, bench.RunFailed, bench.RunCanceled, bench.RunInterrupted}

// compareView is what the compare part renders: the pickers and, once two
// runs are picked, internal/report's comparison.
type compareView struct {
	Choices    []bench.RunSummary
	Base, Head string
	Threshold  string
	Comparison template.HTML
	// Searches are the search charts of the runs that are capacity runs.
	Searches template.HTML
	Error    *errorView
}

// comparePart renders the pickers, and the comparison of base and head
// when both are given. An unknown run or a bad threshold is shown next to
// its field, with status 400.
func (p *Pages) comparePart(ctx context.Context, q url.Values) ([]byte, int, error) {
	view := compareView{Base: q.Get("base"), Head: q.Get("head"), Threshold: q.Get("threshold")}
	choices, _, err := p.cfg.Store.FindRunSummaries(ctx, bench.RunFilter{Status: finishedStatuses, Limit: compareChoices})
	if err != nil {
		return nil, 0, err
	}
	view.Choices = choices
	status := http.StatusOK
	if view.Base != "" && view.Head != "" {
		if err := p.compare(ctx, &view); err != nil {
			fault, ok := fieldFault(err)
			if !ok {
				return nil, 0, err
			}
			view.Error, status = fault, http.StatusBadRequest
		}
	}
	body, err := p.render("compare", view)
	return body, status, err
}

// compare loads both runs, compares them and renders the comparison into
// the view; the picked runs join the choices if they are older.
func (p *Pages) compare(ctx context.Context, view *compareView) error {
	threshold := bench.DefaultNoiseThreshold
	if view.Threshold != "" {
		t, err := strconv.ParseFloat(view.Threshold, 64)
		if err != nil || !(t >= 0 && t <= 1000) { // NaN too
			return bench.FieldErrorf("threshold", "must be a percentage from 0 to 1000, got %s", clipQuote(view.Threshold))
		}
		threshold = t
	}
	base, err := p.findCompared(ctx, "base", view.Base)
	if err != nil {
		return err
	}
	head, err := p.findCompared(ctx, "head", view.Head)
	if err != nil {
		return err
	}
	for _, r := range []*bench.Run{head, base} {
		if !slices.ContainsFunc(view.Choices, func(s bench.RunSummary) bool { return s.ID == r.ID }) {
			view.Choices = append([]bench.RunSummary{r.Summary()}, view.Choices...)
		}
	}
	var buf bytes.Buffer
	if err := report.WriteComparisonFragment(&buf, p.cfg.Compare(base, head, threshold)); err != nil {
		return err
	}
	view.Comparison = template.HTML(buf.String()) // #nosec: internal/report escapes what it writes
	return searchCharts(view, base, head)
}

// searchCharts renders the search charts of base and head into the view,
// where they are capacity runs: their answers are compared, their searches
// shown side by side.
func searchCharts(view *compareView, base, head *bench.Run) error {
	var buf bytes.Buffer
	for _, side := range []struct {
		name string
		run  *bench.Run
	}{{"base", base}, {"head", head}} {
		if err := report.WriteSearchFragment(&buf, fmt.Sprintf("The %s run's search (%s)", side.name, side.run.ID), side.run); err != nil {
			return err
		}
	}
	view.Searches = template.HTML(buf.String()) // #nosec: internal/report escapes what it writes
	return nil
}

// findCompared loads one side; an unknown run is the fault of its field.
func (p *Pages) findCompared(ctx context.Context, field, id string) (*bench.Run, error) {
	if !validID(id) {
		return nil, bench.FieldErrorf(field, "no run %s", clipQuote(id))
	}
	run, err := p.cfg.Store.FindRunByID(ctx, id)
	if bench.ErrorCode(err) == bench.ENOTFOUND {
		return nil, bench.FieldErrorf(field, "no run %s", clipQuote(id))
	}
	return run, err
}

package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/spec"
)

// Paging of the history.
const (
	defaultPageSize = 25
	maxPageSize     = 200
)

// historyFilter is the history's query as the form shows it.
type historyFilter struct {
	Status, Target, Name, Since string
	Label                       string // KEY=VALUE
	Limit                       int
	Cursor                      string
}

// historyView is what the history part renders.
type historyView struct {
	Filter   historyFilter
	Statuses []bench.RunStatus
	Targets  []string
	Runs     []bench.RunSummary
	Next     string // the next page's URL; "" on the last
	Filtered bool   // some filter is set: an empty list means no match
	Error    *errorView
}

// historyPart renders one page of run summaries, newest first, with the
// filter form. A bad filter is shown next to its field, with status 400.
func (p *Pages) historyPart(ctx context.Context, q url.Values) ([]byte, int, error) {
	view := historyView{Statuses: bench.RunStatuses, Targets: p.targetNames()}
	filter, shown, err := parseHistoryQuery(q)
	view.Filter = shown
	view.Filtered = shown.Status != "" || shown.Target != "" || shown.Name != "" || shown.Since != "" || shown.Label != ""
	if err == nil {
		var next string
		view.Runs, next, err = p.cfg.Store.FindRunSummaries(ctx, filter)
		if next != "" {
			view.Next = nextPageURL(shown, next)
		}
	}
	status := http.StatusOK
	if err != nil {
		fault, ok := fieldFault(err)
		if !ok {
			return nil, 0, err
		}
		view.Error, status = fault, http.StatusBadRequest
	}
	body, err := p.render("history", view)
	return body, status, err
}

// parseHistoryQuery reads the history's query into a store filter, and
// the values as the form shows them back.
func parseHistoryQuery(q url.Values) (bench.RunFilter, historyFilter, error) {
	shown := historyFilter{Status: q.Get("status"), Target: q.Get("target"), Name: q.Get("name"),
		Since: q.Get("since"), Label: q.Get("label"), Cursor: q.Get("cursor"), Limit: defaultPageSize}
	f := bench.RunFilter{Target: shown.Target, Name: shown.Name, Cursor: shown.Cursor, Limit: defaultPageSize}
	if shown.Label != "" {
		labels, err := spec.ParseLabelPairs([]string{shown.Label}, "label")
		if err != nil {
			return f, shown, err
		}
		f.Labels = labels
	}
	if shown.Status != "" {
		status := bench.RunStatus(shown.Status)
		if !slices.Contains(bench.RunStatuses, status) {
			return f, shown, bench.FieldErrorf("status", "unknown status %s", clipQuote(shown.Status))
		}
		f.Status = []bench.RunStatus{status}
	}
	if shown.Since != "" {
		since, err := parseSince(shown.Since)
		if err != nil {
			return f, shown, err
		}
		f.Since = &since
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPageSize {
			return f, shown, bench.FieldErrorf("limit", "must be a whole number from 1 to %d, got %s", maxPageSize, clipQuote(v))
		}
		f.Limit, shown.Limit = n, n
	}
	return f, shown, nil
}

// parseSince reads a day (2026-11-01, from midnight UTC) or an RFC 3339 time.
func parseSince(v string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	return time.Time{}, bench.FieldErrorf("since", "must be a day such as 2026-11-01 (from midnight UTC) or an RFC 3339 time, got %s", clipQuote(v))
}

// nextPageURL is the history's URL with the same filter and the cursor.
func nextPageURL(f historyFilter, cursor string) string {
	q := url.Values{}
	for name, v := range map[string]string{"status": f.Status, "target": f.Target, "name": f.Name, "since": f.Since, "label": f.Label} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if f.Limit != defaultPageSize {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	q.Set("cursor", cursor)
	return "/?" + q.Encode()
}

// fieldFault turns an EINVALID error into what a form shows next to a
// field; other errors are not the user's to fix there.
func fieldFault(err error) (*errorView, bool) {
	if bench.ErrorCode(err) != bench.EINVALID {
		return nil, false
	}
	v := &errorView{Status: http.StatusBadRequest, Title: http.StatusText(http.StatusBadRequest), Detail: bench.ErrorMessage(err)}
	var be *bench.Error
	if errors.As(err, &be) {
		v.Detail, v.Field = be.Message, be.Field
	}
	return v, true
}

// targetNames are the catalog's target names, for the filter.
func (p *Pages) targetNames() []string {
	names := make([]string, len(p.cfg.Targets))
	for i, t := range p.cfg.Targets {
		names[i] = t.Name
	}
	return names
}

// summaryTargets joins a summary's target names: "go, java-virtual".
func summaryTargets(s bench.RunSummary) string {
	names := make([]string, len(s.Targets))
	for i, t := range s.Targets {
		names[i] = t.Key
	}
	return strings.Join(names, ", ")
}

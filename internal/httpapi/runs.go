package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/threadbench/threadbench/api"

	"github.com/go-chi/chi/v5"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/spec"
)

// submitRun queues a run and answers 202 with its document and its URL.
func (s *Server) submitRun(w http.ResponseWriter, r *http.Request) {
	rs, err := decodeSpec(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	run, err := s.cfg.Runs.Submit(r.Context(), rs)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Location", "/runs/"+url.PathEscape(run.ID))
	s.writeJSON(w, r, http.StatusAccepted, run)
}

// listRuns answers one page of the history: summaries, never whole runs.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	filter, err := runFilter(r.URL.Query())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	runs, next, err := s.cfg.Store.FindRunSummaries(r.Context(), filter)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if runs == nil {
		runs = []bench.RunSummary{}
	}
	s.writeJSON(w, r, http.StatusOK, api.RunList{Runs: runs, NextCursor: next})
}

// runFilter reads GET /runs's query. The spec has checked it already; the
// checks here keep the handler correct on its own.
func runFilter(q url.Values) (bench.RunFilter, error) {
	f := bench.RunFilter{Target: q.Get("target"), Name: q.Get("name"), Cursor: q.Get("cursor")}
	var err error
	if f.Labels, err = spec.ParseLabelPairs(q["label"], "label"); err != nil {
		return f, err
	}
	if f.Status, err = parseStatuses(q["status"]); err != nil {
		return f, err
	}
	if f.Since, err = parseTime(q, "since"); err != nil {
		return f, err
	}
	if f.Until, err = parseTime(q, "until"); err != nil {
		return f, err
	}
	// An until before since is an empty window, not an error: the document
	// cannot say "after since", so a window it allows is a page it gets.
	if v := q.Get("limit"); v != "" {
		if f.Limit, err = strconv.Atoi(v); err != nil || f.Limit < 1 {
			return f, bench.FieldErrorf("limit", "must be a positive integer, got %q", v)
		}
	}
	return f, nil
}

// parseStatuses accepts repeated parameters and comma-separated lists.
func parseStatuses(values []string) ([]bench.RunStatus, error) {
	var out []bench.RunStatus
	for _, v := range values {
		for name := range strings.SplitSeq(v, ",") {
			status := bench.RunStatus(strings.TrimSpace(name))
			if !slices.Contains(bench.RunStatuses, status) {
				return nil, bench.FieldErrorf("status", "unknown status %s", quoteClipped(name))
			}
			out = append(out, status)
		}
	}
	return out, nil
}

func parseTime(q url.Values, name string) (*time.Time, error) {
	v := q.Get(name)
	if v == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, bench.FieldErrorf(name, "must be an RFC 3339 time such as 2026-05-01T12:00:00Z")
	}
	return &t, nil
}

// runID returns the run ID of the path. An ID longer than any the daemon
// issues is not looked up: it is not found, and the problem quotes it
// clipped.
func runID(r *http.Request) (string, error) {
	id := chi.URLParam(r, "id")
	if len(id) > maxEcho {
		return "", unknownRun(id)
	}
	return id, nil
}

// targetParam is the target named in the path, unescaped: chi matches the
// raw path, so a client that escapes a variant's comma
// (orders@virtual%2Cjdk=21, as url.PathEscape does) names the same target
// as one that does not. A malformed escape is kept as given, to be
// answered as a target the run does not have.
func targetParam(r *http.Request) string {
	raw := chi.URLParam(r, "target")
	if target, err := url.PathUnescape(raw); err == nil {
		return target
	}
	return raw
}

// runTarget is the run and target the path names: an error for a run ID
// that names no run, or a target the run did not have (404).
func (s *Server) runTarget(r *http.Request) (id, target string, err error) {
	if id, err = runID(r); err != nil {
		return "", "", err
	}
	run, err := s.cfg.Store.FindRunByID(r.Context(), id)
	if err != nil {
		return "", "", err
	}
	if target = targetParam(r); run.Target(target) == nil {
		return "", "", bench.Errorf(bench.ENOTFOUND, "run %s has no target %s", id, quoteClipped(target))
	}
	return id, target, nil
}

// unknownRun is the error for a run ID that names no run, quoted clipped.
func unknownRun(id string) error {
	return bench.Errorf(bench.ENOTFOUND, "run %s not found", clip(id, maxEcho))
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	id, err := runID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	run, err := s.cfg.Store.FindRunByID(r.Context(), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, run)
}

// deleteRun removes a finished run; the store refuses others with ECONFLICT.
func (s *Server) deleteRun(w http.ResponseWriter, r *http.Request) {
	id, err := runID(r)
	if err == nil {
		err = s.cfg.Store.DeleteRun(r.Context(), id)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// cancelRun cancels a run and answers the state it leaves the run in. A
// queued run is canceled at once; a running one stops within a moment, so
// the answer waits up to CancelWait for the run to reach a final status:
// 200 with the final document, or 202 with the run as it stands if the
// runner is still stopping it.
func (s *Server) cancelRun(w http.ResponseWriter, r *http.Request) {
	id, err := runID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// Subscribing first means the end of the run cannot slip by unseen
	// between the cancel and the wait.
	ctx, stop := context.WithTimeout(r.Context(), s.cfg.CancelWait)
	defer stop()
	events, subErr := s.cfg.Runs.Subscribe(ctx, id)
	run, err := s.cfg.Runs.Cancel(r.Context(), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !run.Status.Finished() && subErr == nil {
		run = s.awaitFinal(ctx, r.Context(), run, events)
	}
	status := http.StatusOK
	if !run.Status.Finished() {
		status = http.StatusAccepted
	}
	s.writeJSON(w, r, status, run)
}

// cancelPoll is how often a cancel waiting for its run reads the store
// besides watching the run's events, which a lagging reader can lose.
const cancelPoll = 100 * time.Millisecond

// awaitFinal waits until the run is stored with a final status, its event
// stream ends or wait is done, and returns the run as stored last.
func (s *Server) awaitFinal(wait, req context.Context, run *bench.Run, events <-chan bench.Event) *bench.Run {
	poll := time.NewTicker(cancelPoll)
	defer poll.Stop()
	for {
		select {
		case <-wait.Done():
			return s.reread(req, run)
		case <-poll.C:
		case _, open := <-events:
			if open {
				continue
			}
			events = nil // ended: the run is over, or this reader was cut off
		}
		if run = s.reread(req, run); run.Status.Finished() {
			return run
		}
	}
}

// reread returns the run as stored now, or as it was known if the store
// cannot say.
func (s *Server) reread(ctx context.Context, run *bench.Run) *bench.Run {
	stored, err := s.cfg.Store.FindRunByID(context.WithoutCancel(ctx), run.ID)
	if err != nil {
		s.log.WarnContext(ctx, "rereading a canceled run", "requestId", requestIDFrom(ctx), "run", run.ID, "error", err)
		return run
	}
	return stored
}

// getSeries answers a target's series; 404 when the run did not have the target.
func (s *Server) getSeries(w http.ResponseWriter, r *http.Request) {
	id, target, err := s.runTarget(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	series, err := s.cfg.Store.FindSeries(r.Context(), id, target, r.URL.Query()["name"])
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if series == nil {
		series = []bench.Series{}
	}
	s.writeJSON(w, r, http.StatusOK, api.SeriesList{Series: series})
}

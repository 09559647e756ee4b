package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/threadbench/threadbench/internal/bench"
)

// compareRuns compares two stored runs with cfg.Compare.
func (s *Server) compareRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	threshold, err := parseThreshold(q.Get("threshold"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	base, err := s.findCompared(r.Context(), "base", q.Get("base"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	head, err := s.findCompared(r.Context(), "head", q.Get("head"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, s.cfg.Compare(base, head, threshold))
}

func parseThreshold(v string) (float64, error) {
	if v == "" {
		return bench.DefaultNoiseThreshold, nil
	}
	t, err := strconv.ParseFloat(v, 64)
	if err != nil || t < 0 {
		return 0, bench.FieldErrorf("threshold", "must be a percentage of at least 0, got %q", v)
	}
	return t, nil
}

// findCompared loads one side of a comparison; a missing or unknown ID is
// reported against its parameter.
func (s *Server) findCompared(ctx context.Context, param, id string) (*bench.Run, error) {
	if id == "" {
		return nil, bench.FieldErrorf(param, "is required")
	}
	notFound := &bench.Error{Code: bench.ENOTFOUND, Field: param, Message: "run " + clip(id, maxEcho) + " not found"}
	if len(id) > maxEcho {
		return nil, notFound // longer than any ID the daemon issues
	}
	run, err := s.cfg.Store.FindRunByID(ctx, id)
	if bench.ErrorCode(err) == bench.ENOTFOUND {
		return nil, notFound
	}
	return run, err
}

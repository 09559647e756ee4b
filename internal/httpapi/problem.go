package httpapi

import (
	"encoding/json"
	"errors"
	"github.com/threadbench/threadbench/api"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/threadbench/threadbench/internal/bench"
)

// writeError answers err as a problem. Errors that map to 500 are logged
// with the request ID and answered "internal error", never their text.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status := api.StatusForCode(bench.ErrorCode(err))
	if status == http.StatusInternalServerError {
		s.log.ErrorContext(r.Context(), "request failed", "requestId", requestIDFrom(r.Context()),
			"method", r.Method, "path", r.URL.Path, "error", err)
		s.writeProblem(w, r, http.StatusInternalServerError, "internal error", "")
		return
	}
	var field string
	var be *bench.Error
	if errors.As(err, &be) {
		field = be.Field
	}
	if wait := bench.RetryAfter(err); wait > 0 && status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", retryAfterSeconds(wait))
	}
	s.writeProblem(w, r, status, bench.ErrorMessage(err), field)
}

// retryAfterSeconds formats a wait as Retry-After's delay-seconds (RFC 9110
// §10.2.3): whole seconds, rounded up, at least 1.
func retryAfterSeconds(wait time.Duration) string {
	secs := int64((wait + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(secs, 1), 10)
}

// writeProblem writes a problem document with the given status. What it
// echoes of the request (the path, values quoted in the detail, a field
// name taken from a body) is clipped, so that a megabyte of input is not
// sent back whole.
func (s *Server) writeProblem(w http.ResponseWriter, r *http.Request, status int, detail, field string) {
	p := api.Problem{
		Type:      "about:blank",
		Title:     http.StatusText(status),
		Status:    status,
		Detail:    clip(detail, maxDetail),
		Instance:  clip(r.URL.Path, maxEcho),
		Field:     clip(field, maxEcho),
		RequestID: requestIDFrom(r.Context()),
	}
	w.Header().Set("Content-Type", api.ProblemContentType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(p); err != nil {
		s.log.DebugContext(r.Context(), "writing problem", "error", err)
	}
}

// writeJSON writes v as a JSON response.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		// The status is out already; all that is left is to say so in the log.
		s.log.WarnContext(r.Context(), "writing response", "requestId", requestIDFrom(r.Context()), "error", err)
	}
}

// Bounds of what a problem echoes: a value quoted in a detail or named as a
// field or instance (maxEcho, enough for any run ID or target name the
// daemon issues), and the whole detail (maxDetail).
const (
	maxEcho   = 64
	maxDetail = 1024
)

// clip shortens s to at most n bytes, on a rune boundary, marking the cut
// with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// quoteClipped quotes a value taken from a request for a problem's detail.
func quoteClipped(s string) string { return strconv.Quote(clip(s, maxEcho)) }

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.writeProblem(w, r, http.StatusNotFound, "no route for "+clip(r.Method, 16)+" "+clip(r.URL.Path, maxEcho), "")
}

// methodNotAllowed answers 405 with the Allow header chi leaves out when the
// handler is replaced. HEAD is allowed wherever GET is. Only the methods of
// the path's most specific route are allowed: /runs/trend is GET's own
// route, and DELETE reaches it only through /runs/{id}, as a run's ID.
func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	methods := []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	params := map[string]int{}
	fewest := -1
	for _, m := range methods {
		rctx := chi.NewRouteContext()
		if s.mux.Match(rctx, m, r.URL.Path) {
			params[m] = strings.Count(rctx.RoutePattern(), "{")
			if fewest < 0 || params[m] < fewest {
				fewest = params[m]
			}
		}
	}
	var allowed []string
	for _, m := range methods {
		if n, ok := params[m]; ok && n == fewest {
			allowed = append(allowed, m)
			if m == http.MethodGet {
				allowed = append(allowed, http.MethodHead)
			}
		}
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	s.writeProblem(w, r, http.StatusMethodNotAllowed, clip(r.Method, 16)+" is not allowed on "+clip(r.URL.Path, maxEcho), "")
}

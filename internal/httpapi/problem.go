package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/threadbench/threadbench/internal/bench"
)

// ProblemContentType is the media type of error responses (RFC 9457).
const ProblemContentType = "application/problem+json"

// Problem is an RFC 9457 problem document, the body of every error response.
// Field names the one input field at fault, when there is one; RequestID is
// the request's X-Request-Id, under which the daemon logged it.
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Instance  string `json:"instance,omitempty"`
	Field     string `json:"field,omitempty"`
	RequestID string `json:"requestId,omitempty"`
}

// statusByCode is the one table from error codes to HTTP statuses, read
// both ways: by the server (StatusForCode) and by the API client
// (CodeForStatus). Codes not in it, and errors without a code, are 500s.
var statusByCode = map[string]int{
	bench.EINVALID:     http.StatusBadRequest,
	bench.ENOTFOUND:    http.StatusNotFound,
	bench.ECONFLICT:    http.StatusConflict,
	bench.ETOOLARGE:    http.StatusRequestEntityTooLarge,
	bench.EUNAVAILABLE: http.StatusServiceUnavailable,
}

// StatusForCode returns the HTTP status of an error code, 500 for codes
// not in the table.
func StatusForCode(code string) int {
	if status, ok := statusByCode[code]; ok {
		return status
	}
	return http.StatusInternalServerError
}

// CodeForStatus returns the error code an HTTP error status stands for:
// the table read backwards, plus 422 as invalid input, and 401 and 403 as
// the caller's input too (a missing or wrong token, a Host or Origin the
// daemon does not answer: the caller's configuration to fix); EINTERNAL
// otherwise.
func CodeForStatus(status int) string {
	switch status {
	case http.StatusUnprocessableEntity, http.StatusUnauthorized, http.StatusForbidden:
		return bench.EINVALID
	}
	for code, s := range statusByCode {
		if s == status {
			return code
		}
	}
	return bench.EINTERNAL
}

// Err turns a problem received from the daemon back into the *bench.Error
// it was made from, using the same table.
func (p Problem) Err() *bench.Error {
	return &bench.Error{Code: CodeForStatus(p.Status), Field: p.Field, Message: p.Detail}
}

// writeError answers err as a problem. Errors that map to 500 are logged
// with the request ID and answered "internal error", never their text.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, ok := statusByCode[bench.ErrorCode(err)]
	if !ok {
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

// ParseRetryAfter reads a Retry-After header in delay-seconds; an absent,
// negative or HTTP-date value (which this daemon never sends) gives 0.
func ParseRetryAfter(h string) time.Duration {
	secs, err := strconv.ParseInt(strings.TrimSpace(h), 10, 64)
	if err != nil || secs < 0 {
		return 0
	}
	return time.Duration(secs) * time.Second
}

// writeProblem writes a problem document with the given status. What it
// echoes of the request (the path, values quoted in the detail, a field
// name taken from a body) is clipped, so that a megabyte of input is not
// sent back whole.
func (s *Server) writeProblem(w http.ResponseWriter, r *http.Request, status int, detail, field string) {
	p := Problem{
		Type:      "about:blank",
		Title:     http.StatusText(status),
		Status:    status,
		Detail:    clip(detail, maxDetail),
		Instance:  clip(r.URL.Path, maxEcho),
		Field:     clip(field, maxEcho),
		RequestID: requestIDFrom(r.Context()),
	}
	w.Header().Set("Content-Type", ProblemContentType)
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
// handler is replaced. HEAD is allowed wherever GET is.
func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if s.mux.Match(chi.NewRouteContext(), m, r.URL.Path) {
			allowed = append(allowed, m)
			if m == http.MethodGet {
				allowed = append(allowed, http.MethodHead)
			}
		}
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	s.writeProblem(w, r, http.StatusMethodNotAllowed, clip(r.Method, 16)+" is not allowed on "+clip(r.URL.Path, maxEcho), "")
}

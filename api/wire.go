package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// The wire types of the contract: what a daemon answers and a client
// decodes, kept here so that a client needs the contract, not the server.

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

// ParseRetryAfter reads a Retry-After header in delay-seconds; an absent,
// negative or HTTP-date value (which this daemon never sends) gives 0.
func ParseRetryAfter(h string) time.Duration {
	secs, err := strconv.ParseInt(strings.TrimSpace(h), 10, 64)
	if err != nil || secs < 0 {
		return 0
	}
	return time.Duration(secs) * time.Second
}

package httpapi_test

import (
	"errors"
	"github.com/threadbench/threadbench/api"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/httpapi"
)

const validSpec = `{"targets":["go"],"profile":"smoke","workload":{"requests":[{"endpoint":"light"}]}}`

// TestErrors sends requests that must fail and checks the problem each gets:
// status, the field at fault, and words of the detail.
func TestErrors(t *testing.T) {
	for _, tt := range []struct {
		name        string
		setup       func(*env)
		method      string
		path        string
		body        string
		contentType string // "" means application/json when there is a body
		status      int
		field       string
		detail      string // a substring of the detail
	}{
		// Domain errors from the store and the queue, through the one table.
		{name: "UnknownRun", method: "GET", path: "/runs/nope", status: 404, detail: "run nope not found",
			setup: func(e *env) {
				e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) { return nil, notFound(id) }
			}},
		{name: "DeleteRunningRun", method: "DELETE", path: "/runs/r1", status: 409, detail: "running",
			setup: func(e *env) {
				e.store.DeleteRunFn = func(_ ctxT, id string) error {
					return bench.Errorf(bench.ECONFLICT, "run %s is running; cancel it first", id)
				}
			}},
		{name: "DeleteUnknownRun", method: "DELETE", path: "/runs/nope", status: 404, detail: "not found",
			setup: func(e *env) { e.store.DeleteRunFn = func(_ ctxT, id string) error { return notFound(id) } }},
		{name: "CancelFinishedRun", method: "POST", path: "/runs/r1/cancel", status: 409, detail: "finished",
			setup: func(e *env) {
				e.runs.CancelFn = func(_ ctxT, id string) (*bench.Run, error) {
					return nil, bench.Errorf(bench.ECONFLICT, "run %s has already finished", id)
				}
			}},
		{name: "SubmitInvalidField", method: "POST", path: "/runs", body: validSpec, status: 400,
			field: "targets[0]", detail: "unknown target",
			setup: func(e *env) {
				e.runs.SubmitFn = func(ctxT, bench.RunSpec) (*bench.Run, error) {
					return nil, bench.FieldErrorf("targets[0]", "unknown target %q", "rust")
				}
			}},
		{name: "QueueFull", method: "POST", path: "/runs", body: validSpec, status: 503, detail: "queue is full",
			setup: func(e *env) {
				e.runs.SubmitFn = func(ctxT, bench.RunSpec) (*bench.Run, error) {
					return nil, &bench.Error{Code: bench.EUNAVAILABLE, Message: "the run queue is full", RetryAfter: 41500 * time.Millisecond}
				}
			}},

		{name: "UntypedError", method: "GET", path: "/runs/r1", status: 500, detail: "internal error",
			setup: func(e *env) {
				e.store.FindRunByIDFn = func(ctxT, string) (*bench.Run, error) {
					return nil, errors.New("sqlite: disk I/O error at page 42")
				}
			}},
		{name: "InternalCode", method: "GET", path: "/runs/r1", status: 500, detail: "internal error",
			setup: func(e *env) {
				e.store.FindRunByIDFn = func(ctxT, string) (*bench.Run, error) {
					return nil, bench.Errorf(bench.EINTERNAL, "sqlite: disk I/O error at page 42")
				}
			}},

		// Bodies.
		{name: "MalformedJSON", method: "POST", path: "/runs", body: `{"targets":["go"],}`, status: 400, detail: "offset 19"},
		{name: "TruncatedJSON", method: "POST", path: "/runs", body: `{"targets":["go"]`, status: 400, detail: "not valid JSON"},
		{name: "TrailingData", method: "POST", path: "/runs", body: validSpec + `{}`, status: 400, detail: "offset"},
		{name: "UnknownField", method: "POST", path: "/runs", body: `{"targets":["go"],"profile":"smoke","bogus":1}`,
			status: 400, field: "bogus", detail: "unknown field"},
		{name: "UnknownNestedField", method: "POST", path: "/runs",
			body:   `{"targets":["go"],"profile":{"stages":[{"duration":"5s","bogus":1}]}}`,
			status: 400, field: "profile.stages[0].bogus", detail: "unknown field"},
		{name: "BadDuration", method: "POST", path: "/runs",
			body:   `{"targets":["go"],"profile":{"stages":[{"duration":"5x"}]}}`,
			status: 400, field: "profile.stages[0].duration", detail: "duration"},
		{name: "ProfileOfWrongKind", method: "POST", path: "/runs", body: `{"targets":["go"],"profile":5}`,
			status: 400, field: "profile", detail: "profile"},
		{name: "WrongType", method: "POST", path: "/runs", body: `{"targets":"go","profile":"smoke"}`,
			status: 400, field: "targets", detail: "must be a list"},
		{name: "OutOfRange", method: "POST", path: "/runs",
			body:   `{"targets":["go"],"profile":"smoke","workload":{"requests":[{"endpoint":"heavy","weight":-1}]}}`,
			status: 400, field: "workload.requests[0].weight", detail: "from 1 to 1000"},
		{name: "CapacityBadObjective", method: "POST", path: "/runs", body: `{"targets":["go"],"capacity":{"objective":"p99<=soon"}}`,
			status: 400, field: "capacity.objective", detail: "p99 needs a positive duration"},
		{name: "CapacityWithProfile", method: "POST", path: "/runs", body: `{"targets":["go"],"profile":"smoke","capacity":{"objective":"p99<=1s"}}`,
			status: 400, field: "profile", detail: "leave the profile out"},
		{name: "CapacityAboveMaxRate", method: "POST", path: "/runs", body: `{"targets":["go"],"capacity":{"objective":"p99<=1s","maxRate":1e9}}`,
			status: 400, field: "capacity.maxRate", detail: "configured maximum rate"},
		{name: "MissingRequired", method: "POST", path: "/runs", body: `{"profile":"smoke"}`,
			status: 400, field: "targets", detail: "at least one target"},
		{name: "EmptyBody", method: "POST", path: "/runs", contentType: "application/json", status: 400, detail: "empty"},
		{name: "NotJSON", method: "POST", path: "/runs", body: validSpec, contentType: "text/plain",
			status: 415, field: "Content-Type", detail: "application/json"},
		{name: "OversizedBody", method: "POST", path: "/runs",
			body:   `{"targets":["go"],"profile":"smoke","name":"` + strings.Repeat("x", 2048) + `"}`,
			status: 413, detail: "larger than 1024 bytes"},

		// Parameters.
		{name: "LimitNotANumber", method: "GET", path: "/runs?limit=abc", status: 400, field: "limit", detail: "abc"},
		{name: "LimitZero", method: "GET", path: "/runs?limit=0", status: 400, field: "limit", detail: "at least 1"},
		{name: "SinceNotADate", method: "GET", path: "/runs?since=notadate", status: 400, field: "since", detail: "RFC 3339"},
		{name: "BadStatus", method: "GET", path: "/runs?status=bogus", status: 400, field: "status", detail: "queued"},
		{name: "BadStatusInList", method: "GET", path: "/runs?status=running,bogus", status: 400, field: "status"},
		{name: "CompareWithoutHead", method: "GET", path: "/compare?base=a", status: 400, field: "head", detail: "required"},
		{name: "CompareNegativeThreshold", method: "GET", path: "/compare?base=a&head=b&threshold=-1",
			status: 400, field: "threshold"},
		{name: "CompareUnknownRun", method: "GET", path: "/compare?base=a&head=zz", status: 404, field: "head", detail: "zz",
			setup: func(e *env) {
				e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) {
					if id == "a" {
						return sampleRun("a", bench.RunSucceeded), nil
					}
					return nil, notFound(id)
				}
			}},
		{name: "SeriesOfTargetNotInRun", method: "GET", path: "/runs/r1/targets/rust/series", status: 404, detail: "rust",
			setup: func(e *env) {
				e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) { return sampleRun(id, bench.RunSucceeded), nil }
			}},

		// Routing.
		{name: "NoSuchRoute", method: "GET", path: "/nope", status: 404, detail: "no route"},
		{name: "MethodNotAllowed", method: "PUT", path: "/runs/r1", status: 405, detail: "PUT"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, func(c *httpapi.Config) { c.MaxBodyBytes = 1024 })
			if tt.setup != nil {
				tt.setup(e)
			}
			req := e.newRequest(t, tt.method, tt.path, tt.body)
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			resp := e.send(t, req)
			p := problem(t, resp, tt.status)
			t.Logf("field %q, detail %q", p.Field, p.Detail)
			if got, want := p.Field, tt.field; got != want {
				t.Errorf("field = %q, want %q (detail %q)", got, want, p.Detail)
			}
			if !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("detail = %q, want it to contain %q", p.Detail, tt.detail)
			}
			if tt.status != http.StatusMethodNotAllowed && tt.path != "/nope" {
				conforms(t, req, resp)
			}
			if tt.status == http.StatusServiceUnavailable {
				// 41.5 s rounds up: a client that waits what it is told is never early.
				if got, want := resp.Header.Get("Retry-After"), "42"; got != want {
					t.Errorf("Retry-After = %q, want %q", got, want)
				}
			}
		})
	}
}

// TestInternalErrorsAreLoggedNotLeaked checks that the cause of a 500 is in
// the log, under the request ID, and not in the response.
func TestInternalErrorsAreLoggedNotLeaked(t *testing.T) {
	e := newEnv(t)
	e.store.FindRunByIDFn = func(ctxT, string) (*bench.Run, error) {
		return nil, errors.New("sqlite: disk I/O error at page 42")
	}
	resp := e.do(t, "GET", "/runs/r1", "")
	p := problem(t, resp, 500)
	if strings.Contains(string(resp.body), "sqlite") {
		t.Errorf("response leaks the cause: %s", resp.body)
	}
	logs := e.logs.String()
	if !strings.Contains(logs, "disk I/O error at page 42") || !strings.Contains(logs, "requestId="+p.RequestID) {
		t.Errorf("log lacks the cause under request ID %s:\n%s", p.RequestID, logs)
	}
}

// TestPanicIsA500 checks that a panicking handler answers a 500 problem that
// says nothing of the panic, which goes to the log with its stack.
func TestPanicIsA500(t *testing.T) {
	e := newEnv(t)
	e.store.FindRunByIDFn = func(ctxT, string) (*bench.Run, error) {
		panic("secret panic text: index out of range")
	}
	resp := e.do(t, "GET", "/runs/r1", "")
	p := problem(t, resp, 500)
	if got, want := p.Detail, "internal error"; got != want {
		t.Errorf("detail = %q, want %q", got, want)
	}
	if strings.Contains(string(resp.body), "secret") {
		t.Errorf("response leaks the panic: %s", resp.body)
	}
	logs := e.logs.String()
	if !strings.Contains(logs, "secret panic text") || !strings.Contains(logs, "stack=") {
		t.Errorf("log lacks the panic and its stack:\n%s", logs)
	}
	// The server goes on serving.
	e.runs.QueueLengthFn = func() int { return 0 }
	if got := e.do(t, "GET", "/healthz", "").StatusCode; got != http.StatusOK {
		t.Errorf("after the panic, GET /healthz = %d", got)
	}
}

// TestOversizedChunkedBody checks the limit when no Content-Length announces
// the size, so that the reader has to stop at the limit.
func TestOversizedChunkedBody(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.MaxBodyBytes = 1024 })
	req := e.newRequest(t, "POST", "/runs", `{"targets":["go"],"profile":"smoke","name":"`+strings.Repeat("x", 4096)+`"}`)
	req.ContentLength = -1 // sent chunked
	problem(t, e.send(t, req), http.StatusRequestEntityTooLarge)
}

func TestMethodNotAllowedListsAllowed(t *testing.T) {
	e := newEnv(t)
	resp := e.do(t, "PUT", "/runs/r1", "")
	problem(t, resp, http.StatusMethodNotAllowed)
	if got, want := strings.Join(resp.Header.Values("Allow"), ","), "GET, HEAD, DELETE"; got != want {
		t.Errorf("Allow = %q, want %q", got, want)
	}
}

// TestProblemErr checks that a problem maps back to the error it came from.
func TestProblemErr(t *testing.T) {
	for _, tt := range []struct {
		status int
		code   string
	}{
		{400, bench.EINVALID}, {404, bench.ENOTFOUND}, {409, bench.ECONFLICT},
		{413, bench.ETOOLARGE}, {503, bench.EUNAVAILABLE}, {500, bench.EINTERNAL}, {502, bench.EINTERNAL},
	} {
		got := api.Problem{Status: tt.status, Detail: "d", Field: "f"}.Err()
		if got.Code != tt.code || got.Field != "f" || got.Message != "d" {
			t.Errorf("status %d: Err() = %+v, want code %q", tt.status, got, tt.code)
		}
	}
}

package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/httpapi"
)

// TestHeadOnGetRoutes checks that every GET route answers HEAD with the
// status and media type of GET, and no body.
func TestHeadOnGetRoutes(t *testing.T) {
	e := newEnv(t)
	e.runs.QueueLengthFn = func() int { return 0 }
	e.runs.SubscribeFn = func(ctxT, string) (<-chan bench.Event, error) { return nil, notFound("r1") }
	e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) {
		if id == "nope" {
			return nil, notFound(id)
		}
		return sampleRun(id, bench.RunSucceeded), nil
	}
	e.store.FindRunSummariesFn = func(ctxT, bench.RunFilter) ([]bench.RunSummary, string, error) {
		return []bench.RunSummary{sampleRun("r1", bench.RunSucceeded).Summary()}, "", nil
	}
	e.store.FindSeriesFn = func(ctxT, string, string, []string) ([]bench.Series, error) { return nil, nil }
	paths := map[string]string{ // route -> a path of it
		"/openapi.yaml": "/openapi.yaml", "/healthz": "/healthz", "/metrics": "/metrics",
		"/targets": "/targets", "/profiles": "/profiles", "/runs": "/runs?limit=5",
		"/runs/{id}": "/runs/r1", "/runs/{id}/events": "/runs/r1/events",
		"/runs/{id}/targets/{target}/series": "/runs/r1/targets/go/series", "/compare": "/compare?base=r1&head=r2", "/runs/trend": "/runs/trend?name=smoke&target=go",
		"/runs/{id}/report": "/runs/r1/report?format=html", "/runs/{id}/files": "/runs/r1/files",
		"/runs/{id}/targets/{target}/recording.jfr":         "/runs/r1/targets/go/recording.jfr",
		"/runs/{id}/targets/{target}/threads.txt":           "/runs/r1/targets/go/threads.txt",
		"/runs/{id}/targets/{target}/stages/{stage}/{file}": "/runs/r1/targets/go/stages/0/stacks.folded",
	}
	for _, route := range e.api.Routes() {
		method, pattern, _ := strings.Cut(route, " ")
		if method != "GET" {
			continue
		}
		path, ok := paths[pattern]
		if !ok {
			t.Errorf("no example path for %s", pattern)
			continue
		}
		for _, p := range []string{path, "/runs/nope"} {
			if p == "/runs/nope" && pattern != "/runs/{id}" {
				continue
			}
			get, head := e.do(t, "GET", p, ""), e.do(t, "HEAD", p, "")
			if head.StatusCode != get.StatusCode || head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
				t.Errorf("HEAD %s: %d %q, GET: %d %q", p, head.StatusCode, head.Header.Get("Content-Type"),
					get.StatusCode, get.Header.Get("Content-Type"))
			}
			if len(head.body) != 0 {
				t.Errorf("HEAD %s has a body of %d bytes", p, len(head.body))
			}
		}
	}
}

// TestMethodNotAllowed checks 405 with Allow on every path for a method it
// does not have, before any parameter is looked at.
func TestMethodNotAllowed(t *testing.T) {
	for _, tt := range []struct {
		method, path, allow string
	}{
		// kin-openapi's router matched DELETE /runs to /runs/{id} with an
		// empty ID, and the request failed validation with a 400.
		{"DELETE", "/runs", "GET, HEAD, POST"},
		{"PUT", "/runs/r1", "GET, HEAD, DELETE"},
		{"GET", "/runs/r1/cancel", "POST"},
		{"HEAD", "/runs/r1/cancel", "POST"},
		{"DELETE", "/runs/r1/cancel", "POST"},
		{"POST", "/healthz", "GET, HEAD"},
		{"PATCH", "/compare?base=&head=", "GET, HEAD"},
		{"POST", "/runs/r1/targets/go/series?name=", "GET, HEAD"},
		// GET /runs/trend is a route of its own; DELETE reaches the path
		// only as a run's ID (/runs/{id}), which is not this resource.
		{"OPTIONS", "/runs/trend?name=n&target=go", "GET, HEAD"},
		{"POST", "/runs/trend", "GET, HEAD"},
	} {
		t.Run(tt.method+tt.path, func(t *testing.T) {
			e := newEnv(t)
			resp := e.do(t, tt.method, tt.path, "")
			if got, want := resp.StatusCode, http.StatusMethodNotAllowed; got != want {
				t.Fatalf("status = %d, want %d: %s", got, want, resp.body)
			}
			if tt.method != "HEAD" {
				problem(t, resp, http.StatusMethodNotAllowed)
			}
			if got := resp.Header.Get("Allow"); got != tt.allow {
				t.Errorf("Allow = %q, want %q", got, tt.allow)
			}
		})
	}
}

// TestLongInputIsClippedInProblems sends a megabyte where a run ID or a
// target goes: the problem quotes 64 characters of it, and the store is
// not asked about an ID longer than any it issues.
func TestLongInputIsClippedInProblems(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, tt := range []struct {
		name, method, path string
		status             int
		field              string
	}{
		{"GetRun", "GET", "/runs/" + long, 404, ""},
		{"DeleteRun", "DELETE", "/runs/" + long, 404, ""},
		{"CancelRun", "POST", "/runs/" + long + "/cancel", 404, ""},
		{"FollowRun", "GET", "/runs/" + long + "/events", 404, ""},
		{"Series", "GET", "/runs/" + long + "/targets/go/series", 404, ""},
		{"SeriesTarget", "GET", "/runs/r1/targets/" + long + "/series", 404, ""},
		{"CompareBase", "GET", "/compare?head=r1&base=" + long, 404, "base"},
		{"NoRoute", "GET", "/" + long, 404, ""},
		{"Method", "PUT", "/runs/" + long, 405, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			var lookedUp atomic.Int32
			e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) {
				if len(id) > 64 {
					lookedUp.Add(1)
				}
				return sampleRun(id, bench.RunSucceeded), nil
			}
			// Served in-process: a real server refuses a 1 MB request line (431)
			// before any handler sees it.
			req := httptest.NewRequest(tt.method, tt.path, nil)
			req.Host = "127.0.0.1:8080"
			rec := httptest.NewRecorder()
			e.api.Handler().ServeHTTP(rec, req)
			resp := response{Response: rec.Result(), body: rec.Body.Bytes()}
			p := problem(t, resp, tt.status)
			if len(resp.body) > 2048 {
				t.Errorf("problem is %d bytes long", len(resp.body))
			}
			if !strings.Contains(p.Detail, "xxxx…") || strings.Contains(string(resp.body), strings.Repeat("x", 65)) {
				t.Errorf("problem does not quote the input clipped to 64 characters: %s", resp.body)
			}
			if p.Field != tt.field {
				t.Errorf("field = %q, want %q", p.Field, tt.field)
			}
			if lookedUp.Load() != 0 {
				t.Error("the store was asked for an over-long ID")
			}
		})
	}
}

// TestCancelAnswersTheStateItLeaves checks that a cancel waits for the run
// to be recorded final (200), and answers 202 with the run as it stands
// when the runner takes longer than CancelWait.
func TestCancelAnswersTheStateItLeaves(t *testing.T) {
	for _, tt := range []struct {
		name     string
		stopsIn  time.Duration // how long the runner takes to record the cancellation; 0: Cancel does it
		closes   bool          // the event stream ends when the run does
		status   int
		wantRun  bench.RunStatus
		maxDelay time.Duration
	}{
		// The bounds are half the wait (3 s): an answer within one did not
		// wait it out, however busy the machine (a queued cancel took 129
		// ms in a clean-clone run beside the integration tests).
		// A queued run is canceled by Cancel itself.
		{"Queued", 0, true, 200, bench.RunCanceled, 1500 * time.Millisecond},
		// A running run: the end of its events says it is over.
		{"RunningStopsSoon", 150 * time.Millisecond, true, 200, bench.RunCanceled, 1500 * time.Millisecond},
		// Events lost (a lagging subscriber cut off early): the store is polled.
		{"RunningEventsLost", 250 * time.Millisecond, false, 200, bench.RunCanceled, 1500 * time.Millisecond},
		// Still stopping when the wait is over.
		{"RunningStopsLate", 10 * time.Second, true, 202, bench.RunRunning, 4500 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, func(c *httpapi.Config) { c.CancelWait = 3 * time.Second })
			var stored atomic.Value
			stored.Store(bench.RunRunning)
			events := make(chan bench.Event)
			e.runs.SubscribeFn = func(ctxT, string) (<-chan bench.Event, error) { return events, nil }
			e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) {
				return sampleRun(id, stored.Load().(bench.RunStatus)), nil
			}
			e.runs.CancelFn = func(_ ctxT, id string) (*bench.Run, error) {
				if tt.stopsIn == 0 {
					stored.Store(bench.RunCanceled)
					return sampleRun(id, bench.RunCanceled), nil
				}
				time.AfterFunc(tt.stopsIn, func() {
					stored.Store(bench.RunCanceled)
					if tt.closes {
						close(events)
					}
				})
				return sampleRun(id, bench.RunRunning), nil
			}
			start := time.Now()
			req := e.newRequest(t, "POST", "/runs/r1/cancel", "")
			resp := e.send(t, req)
			if took := time.Since(start); took > tt.maxDelay {
				t.Errorf("answered after %s, want within %s", took, tt.maxDelay)
			}
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tt.status, resp.body)
			}
			if run := decode[bench.Run](t, resp); run.Status != tt.wantRun {
				t.Errorf("run status = %s, want %s", run.Status, tt.wantRun)
			}
			conforms(t, req, resp)
		})
	}
}

package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/httpapi"
	"github.com/threadbench/threadbench/internal/web"
)

// withPages mounts the daemon's web page (internal/web) on the fakes.
func withPages(t *testing.T) func(*httpapi.Config) {
	return func(c *httpapi.Config) {
		pages, err := web.New(web.Config{Store: c.Store, Compare: c.Compare, Targets: c.Targets, Logger: c.Logger})
		if err != nil {
			t.Fatal(err)
		}
		c.Pages = pages
	}
}

// onePage is a history of one run, for the pages' parts to read.
func onePage(e *env) {
	e.store.FindRunSummariesFn = func(ctxT, bench.RunFilter) ([]bench.RunSummary, string, error) {
		return []bench.RunSummary{sampleRun("r1", bench.RunSucceeded).Summary()}, "", nil
	}
}

// TestPagesBesideTheAPI checks that the page is served at / and /ui/ and
// the API keeps every route it has, its spec's routes and no more.
func TestPagesBesideTheAPI(t *testing.T) {
	e := newEnv(t, withPages(t))
	onePage(e)
	for _, tt := range []struct {
		path, contentType string
	}{
		{"/", "text/html"},
		{"/ui/new", "text/html"},
		{"/ui/parts/history", "text/html"},
		{"/ui/assets/app.js", "text/javascript"},
		{"/runs", "application/json"},
		{"/openapi.yaml", "application/yaml"},
	} {
		resp := e.do(t, "GET", tt.path, "")
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), tt.contentType) {
			t.Errorf("GET %s: %d %s, want 200 %s", tt.path, resp.StatusCode, resp.Header.Get("Content-Type"), tt.contentType)
		}
	}
	// The API's list of routes is still the spec's (TestRoutesMatchSpec).
	plain := newEnv(t)
	if got, want := strings.Join(e.api.Routes(), "\n"), strings.Join(plain.api.Routes(), "\n"); got != want {
		t.Errorf("with the page mounted, Routes() = \n%s\nwant the API's only:\n%s", got, want)
	}
	// An unknown path outside /ui/ is still the API's 404 problem.
	problem(t, e.do(t, "GET", "/nope", ""), http.StatusNotFound)
}

// TestPagesTakeNoPosts checks that the page has no route that changes
// anything: whatever a form could post to / or /ui/ is refused.
func TestPagesTakeNoPosts(t *testing.T) {
	e := newEnv(t, withPages(t))
	calls := countStateCalls(e)
	for _, path := range []string{"/", "/ui/new", "/ui/runs/r1", "/ui/parts/new"} {
		for _, method := range []string{"POST", "PUT", "DELETE"} {
			resp := e.do(t, method, path, validSpec)
			p := problem(t, resp, http.StatusMethodNotAllowed)
			if resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: Allow %q, want GET, HEAD (%s)", method, path, resp.Header.Get("Allow"), p.Detail)
			}
		}
	}
	if calls.total() != 0 {
		t.Errorf("%d state changes through the page's paths", calls.total())
	}
}

// TestCrossSiteCannotCreateOrDelete is the attack with the page
// mounted: a page of another site posting text to /runs or deleting a run,
// and a rebound DNS name (Host: evil.example) doing the same. Neither
// reaches the queue or the store; the page itself is refused to a foreign
// Host too.
func TestCrossSiteCannotCreateOrDelete(t *testing.T) {
	for _, tt := range []struct {
		name, method, path, body string
		headers                  map[string]string
		status                   int
		field                    string
	}{
		{"CrossOriginTextPost", "POST", "/runs", validSpec, map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, 403, "Origin"},
		{"CrossOriginJSONPost", "POST", "/runs", validSpec, map[string]string{"Origin": "http://evil.example", "Content-Type": "application/json"}, 403, "Origin"},
		{"CrossOriginDelete", "DELETE", "/runs/r1", "", map[string]string{"Origin": "http://evil.example"}, 403, "Origin"},
		{"CrossOriginCancel", "POST", "/runs/r1/cancel", "", map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, 403, "Origin"},
		{"ReboundPost", "POST", "/runs", validSpec, map[string]string{"Host": "evil.example", "Content-Type": "application/json"}, 403, "Host"},
		{"ReboundPostOwnOrigin", "POST", "/runs", validSpec, map[string]string{"Host": "evil.example:8080", "Origin": "http://evil.example:8080", "Content-Type": "application/json"}, 403, "Host"},
		{"ReboundDelete", "DELETE", "/runs/r1", "", map[string]string{"Host": "evil.example"}, 403, "Host"},
		{"ReboundPage", "GET", "/", "", map[string]string{"Host": "evil.example"}, 403, "Host"},
		{"ReboundPart", "GET", "/ui/parts/history", "", map[string]string{"Host": "evil.example"}, 403, "Host"},
		{"ReboundAsset", "GET", "/ui/assets/app.js", "", map[string]string{"Host": "evil.example"}, 403, "Host"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, withPages(t))
			onePage(e)
			calls := countStateCalls(e)
			req := e.newRequest(t, tt.method, tt.path, tt.body)
			for k, v := range tt.headers {
				if k == "Host" {
					req.Host = v
					continue
				}
				req.Header.Set(k, v)
			}
			resp := e.send(t, req)
			if p := problem(t, resp, tt.status); p.Field != tt.field {
				t.Errorf("field = %q, want %q (%s)", p.Field, tt.field, p.Detail)
			}
			if n := calls.total(); n != 0 {
				t.Errorf("the request reached the queue or the store (%d state changes)", n)
			}
		})
	}
}

// TestPagesWithToken checks a daemon with a token: the page's shells and
// assets load without it (they hold no data), so the page can ask for
// it; its parts and the API do not.
func TestPagesWithToken(t *testing.T) {
	e := newEnv(t, withPages(t), func(c *httpapi.Config) { c.Token = testToken })
	onePage(e)
	calls := countStateCalls(e)
	for _, tt := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/", 200},
		{"HEAD", "/", 200},
		{"GET", "/ui/runs/r1", 200},
		{"GET", "/ui/new", 200},
		{"GET", "/ui/assets/app.js", 200},
		{"GET", "/ui/parts/history", 401},
		{"GET", "/ui/parts/runs/r1", 401},
		{"GET", "/ui/nope", 401},
		{"GET", "/runs", 401},
		{"GET", "/runs/r1/report", 401},
		{"POST", "/runs", 401},
		{"POST", "/", 401},
		{"DELETE", "/runs/r1", 401},
	} {
		body := ""
		if tt.method == "POST" {
			body = validSpec
		}
		resp := e.do(t, tt.method, tt.path, body)
		if resp.StatusCode != tt.status {
			t.Errorf("%s %s without the token: %d, want %d", tt.method, tt.path, resp.StatusCode, tt.status)
		}
		if tt.status == 200 && strings.Contains(string(resp.body), "r1") {
			t.Errorf("%s %s without the token shows run data", tt.method, tt.path)
		}
	}
	req := e.newRequest(t, "GET", "/ui/parts/history", "")
	req.Header.Set("Authorization", "Bearer "+testToken)
	if resp := e.send(t, req); resp.StatusCode != 200 || !strings.Contains(string(resp.body), "r1") {
		t.Errorf("the history part with the token: %d, want 200 listing r1", resp.StatusCode)
	}
	if calls.total() != 0 {
		t.Errorf("%d state changes without the token", calls.total())
	}
}

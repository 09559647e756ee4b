package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/httpapi"
)

// TestHostIsChecked checks the defence against DNS rebinding: a request is
// answered only when its Host header is one of the server's names.
func TestHostIsChecked(t *testing.T) {
	for _, tt := range []struct {
		name    string
		allowed []string // Config.AllowedHosts
		host    string   // "" for the test server's own address
		ok      bool
	}{
		// Without a list, the loopback names on any port.
		{"OwnAddress", nil, "", true},
		{"LocalhostAnyPort", nil, "localhost:1234", true},
		{"LocalhostCase", nil, "LocalHost:1234", true},
		{"IPv6Loopback", nil, "[::1]:8080", true},
		// Another site's name, as a rebound DNS name sends it.
		{"Foreign", nil, "evil.example", false},
		{"ForeignWithPort", nil, "evil.example:8080", false},
		{"LoopbackLookalike", nil, "127.0.0.1.evil.example", false},
		// A list replaces the default: host:port is that port, host any port.
		{"ListedWithPort", []string{"bench.lan:8080"}, "bench.lan:8080", true},
		{"ListedOtherPort", []string{"bench.lan:8080"}, "bench.lan:9090", false},
		{"ListedAnyPort", []string{"bench.lan"}, "BENCH.lan:9090", true},
		{"NotListed", []string{"bench.lan"}, "localhost:8080", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, func(c *httpapi.Config) { c.AllowedHosts = tt.allowed })
			e.runs.QueueLengthFn = func() int { return 0 }
			req := e.newRequest(t, "GET", "/healthz", "")
			if tt.host != "" {
				req.Host = tt.host
			}
			resp := e.send(t, req)
			if tt.ok {
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("Host %q: status %d, want 200: %s", req.Host, resp.StatusCode, resp.body)
				}
				return
			}
			p := problem(t, resp, http.StatusForbidden)
			if p.Field != "Host" || !strings.Contains(p.Detail, "allowedHosts") {
				t.Errorf("problem = %+v, want field Host and a detail saying how to allow it", p)
			}
			conforms(t, req, resp)
		})
	}
}

func TestNewServerRefusesBadHosts(t *testing.T) {
	for _, host := range []string{"http://bench.lan", "bench.lan/x", "", "a b", "user@bench.lan"} {
		cfg := newEnv(t).cfg
		cfg.AllowedHosts = []string{host}
		if _, err := httpapi.NewServer(cfg); err == nil {
			t.Errorf("allowed host %q: no error", host)
		}
	}
}

// stateCalls counts the calls that change state, so that a test can say
// that a refused request changed nothing.
type stateCalls struct{ submit, cancel, delete atomic.Int32 }

func (c *stateCalls) total() int32 { return c.submit.Load() + c.cancel.Load() + c.delete.Load() }

func countStateCalls(e *env) *stateCalls {
	c := &stateCalls{}
	e.runs.SubmitFn = func(_ ctxT, spec bench.RunSpec) (*bench.Run, error) {
		c.submit.Add(1)
		return sampleRun("r9", bench.RunQueued), nil
	}
	e.runs.CancelFn = func(_ ctxT, id string) (*bench.Run, error) {
		c.cancel.Add(1)
		return sampleRun(id, bench.RunCanceled), nil
	}
	e.runs.SubscribeFn = func(ctxT, string) (<-chan bench.Event, error) { return nil, notFound("r1") }
	e.store.DeleteRunFn = func(ctxT, string) error {
		c.delete.Add(1)
		return nil
	}
	return c
}

// TestCrossSiteRequestsAreRefused sends what a page of another site can
// make a browser send: forms, beacons, no-cors fetches. None gets through
// to the queue or the store.
func TestCrossSiteRequestsAreRefused(t *testing.T) {
	form := url.Values{"targets": {"go"}}.Encode()
	for _, target := range []struct{ method, path string }{
		{"POST", "/runs/r1/cancel"}, {"POST", "/runs"}, {"DELETE", "/runs/r1"},
	} {
		for _, tt := range []struct {
			name    string
			headers map[string]string
			body    string
			status  int
			field   string
		}{
			// A form posted from another site: its Origin gives it away.
			{"FormFromOtherSite", map[string]string{"Origin": "http://evil.example", "Content-Type": "application/x-www-form-urlencoded"}, form, 403, "Origin"},
			{"TextFromOtherSite", map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, validSpec, 403, "Origin"},
			{"MultipartFromOtherSite", map[string]string{"Origin": "https://evil.example", "Content-Type": "multipart/form-data; boundary=x"}, "--x--", 403, "Origin"},
			// Another port of this host is another origin too.
			{"OtherPortOfLocalhost", map[string]string{"Origin": "http://localhost:3000"}, "", 403, "Origin"},
			// Sandboxed frames and files send "null".
			{"NullOrigin", map[string]string{"Origin": "null"}, "", 403, "Origin"},
			{"CrossSiteFetch", map[string]string{"Sec-Fetch-Site": "cross-site"}, "", 403, "Sec-Fetch-Site"},
			{"SameSiteFetch", map[string]string{"Sec-Fetch-Site": "same-site"}, "", 403, "Sec-Fetch-Site"},
			// Without an Origin (old browsers, privacy settings) the media type
			// still refuses every kind of form, with a body or without.
			{"FormWithoutOrigin", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, form, 415, "Content-Type"},
			{"TextWithoutOrigin", map[string]string{"Content-Type": "text/plain;charset=UTF-8"}, validSpec, 415, "Content-Type"},
			{"EmptyForm", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "", 415, "Content-Type"},
			{"BodyWithoutType", map[string]string{}, validSpec, 415, "Content-Type"},
		} {
			t.Run(target.method+target.path+"/"+tt.name, func(t *testing.T) {
				e := newEnv(t)
				calls := countStateCalls(e)
				req := e.newRequest(t, target.method, target.path, "")
				if tt.body != "" {
					req = e.newRequest(t, target.method, target.path, tt.body)
					req.Header.Del("Content-Type")
				}
				for k, v := range tt.headers {
					req.Header.Set(k, v)
				}
				resp := e.send(t, req)
				p := problem(t, resp, tt.status)
				if p.Field != tt.field {
					t.Errorf("field = %q, want %q (detail %q)", p.Field, tt.field, p.Detail)
				}
				if n := calls.total(); n != 0 {
					t.Errorf("a refused request reached the queue or the store (%d calls)", n)
				}
				conforms(t, req, resp)
			})
		}
	}
}

// TestOwnRequestsPass checks what the CLI, curl and the daemon's own pages
// send: no Origin, or the daemon's own; JSON or no body at all.
func TestOwnRequestsPass(t *testing.T) {
	for _, tt := range []struct {
		name    string
		method  string
		path    string
		body    string
		headers map[string]string // "{host}" stands for the server's address
		status  int
	}{
		{"CancelWithoutBodyOrType", "POST", "/runs/r1/cancel", "", nil, 200},
		{"CancelWithJSONType", "POST", "/runs/r1/cancel", "", map[string]string{"Content-Type": "application/json"}, 200},
		{"CancelFromOwnOrigin", "POST", "/runs/r1/cancel", "", map[string]string{"Origin": "http://{host}", "Sec-Fetch-Site": "same-origin"}, 200},
		{"CancelTypedByUser", "POST", "/runs/r1/cancel", "", map[string]string{"Sec-Fetch-Site": "none"}, 200},
		{"Submit", "POST", "/runs", validSpec, map[string]string{"Content-Type": "application/json; charset=utf-8"}, 202},
		{"SubmitVendorJSON", "POST", "/runs", validSpec, map[string]string{"Content-Type": "application/vnd.threadbench+json"}, 202},
		{"Delete", "DELETE", "/runs/r1", "", nil, 204},
		// Reading is not refused whatever the origin; without CORS headers
		// the browser keeps the answer from the other site's page.
		{"ReadFromOtherSite", "GET", "/runs/r1", "", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}, 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			calls := countStateCalls(e)
			e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) { return sampleRun(id, bench.RunSucceeded), nil }
			req := e.newRequest(t, tt.method, tt.path, tt.body)
			host := strings.TrimPrefix(e.srv.URL, "http://")
			for k, v := range tt.headers {
				req.Header.Set(k, strings.ReplaceAll(v, "{host}", host))
			}
			resp := e.send(t, req)
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tt.status, resp.body)
			}
			if tt.method != "GET" && calls.total() != 1 {
				t.Errorf("%d state changes, want 1", calls.total())
			}
			for k := range resp.Header {
				if strings.HasPrefix(k, "Access-Control-") {
					t.Errorf("response has CORS header %s", k)
				}
			}
		})
	}
}

// TestPreflightGetsNoCORS checks that a CORS preflight is not answered with
// any permission.
func TestPreflightGetsNoCORS(t *testing.T) {
	e := newEnv(t)
	req := e.newRequest(t, "OPTIONS", "/runs", "")
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Access-Control-Request-Method", "DELETE")
	resp := e.send(t, req)
	if resp.StatusCode < 400 {
		t.Errorf("preflight answered %d", resp.StatusCode)
	}
	for k := range resp.Header {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("preflight answered CORS header %s", k)
		}
	}
}

const testToken = "tb-0123456789abcdef0123"

// TestToken checks the bearer token: every request needs it once the
// server has one, /healthz included.
func TestToken(t *testing.T) {
	for _, tt := range []struct {
		name          string
		authorization string
		status        int
		challenge     string // a substring of WWW-Authenticate
	}{
		{"Missing", "", 401, `Bearer realm="threadbench"`},
		{"Wrong", "Bearer tb-0123456789abcdef0124", 401, `error="invalid_token"`},
		{"Prefix", "Bearer " + testToken[:10], 401, `error="invalid_token"`},
		{"Longer", "Bearer " + testToken + "x", 401, `error="invalid_token"`},
		{"OtherScheme", "Basic dXNlcjpwYXNz", 401, `Bearer realm="threadbench"`},
		{"NoToken", "Bearer ", 401, `Bearer realm="threadbench"`},
		{"Right", "Bearer " + testToken, 200, ""},
		{"SchemeAnyCase", "bearer " + testToken, 200, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, func(c *httpapi.Config) { c.Token = testToken })
			e.runs.QueueLengthFn = func() int { return 0 }
			calls := countStateCalls(e)
			for _, r := range []struct{ method, path string }{{"GET", "/healthz"}, {"GET", "/openapi.yaml"}, {"POST", "/runs/r1/cancel"}} {
				req := e.newRequest(t, r.method, r.path, "")
				if tt.authorization != "" {
					req.Header.Set("Authorization", tt.authorization)
				}
				resp := e.send(t, req)
				if tt.status == 200 {
					if resp.StatusCode != 200 {
						t.Errorf("%s %s: status %d, want 200: %s", r.method, r.path, resp.StatusCode, resp.body)
					}
					continue
				}
				p := problem(t, resp, tt.status)
				if p.Field != "Authorization" || !strings.Contains(resp.Header.Get("WWW-Authenticate"), tt.challenge) {
					t.Errorf("%s %s: field %q, WWW-Authenticate %q, want Authorization and %s", r.method, r.path,
						p.Field, resp.Header.Get("WWW-Authenticate"), tt.challenge)
				}
				if strings.Contains(string(resp.body), testToken) {
					t.Errorf("the answer quotes the token: %s", resp.body)
				}
				conforms(t, req, resp)
			}
			if tt.status != 200 && calls.total() != 0 {
				t.Errorf("an unauthorized request changed state")
			}
		})
	}
}

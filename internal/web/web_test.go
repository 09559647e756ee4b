package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/web"
)

// shells are the pages' URLs: each answers the same data-free document.
var shells = []string{"/", "/ui/live", "/ui/compare", "/ui/new", "/ui/runs/r0001"}

func TestShellsAreOneDataFreeDocument(t *testing.T) {
	e := newEnv(t)
	e.seed(t, finishedRun("r0001", "nightly-secret", 1, 1, "go"))
	first := e.get(t, "/")
	for _, path := range shells {
		t.Run(path, func(t *testing.T) {
			p := e.get(t, path)
			if p.status != http.StatusOK || p.body != first.body {
				t.Fatalf("status %d; want 200 and the same document as /", p.status)
			}
			p.mustContain(t, `<main id="main"`, `src="/ui/assets/app.js?v=`, `href="/ui/assets/app.css?v=`)
			p.mustNotContain(t, "r0001", "nightly-secret", "<style", "style=", "<script>")
			checkSecurityHeaders(t, p)
		})
	}
}

// checkSecurityHeaders checks what every answer of the pages carries: a
// CSP that allows the daemon itself only and no inline script or style.
func checkSecurityHeaders(t *testing.T, p page) {
	t.Helper()
	csp := p.header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") || strings.Contains(csp, "*") {
		t.Errorf("CSP %q allows inline code or another host", csp)
	}
	for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Cross-Origin-Resource-Policy": "same-origin"} {
		if got := p.header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

func TestUnknownPagesAre404(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/ui/nope", "/ui/runs/", "/ui/runs/a/b", "/ui/assets/nope.js", "/ui/parts/nope", "/ui/parts/runs/a/b", "/ui/parts/runs/" + strings.Repeat("x", 100)} {
		if p := e.get(t, path); p.status != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", path, p.status)
		}
	}
}

func TestAssets(t *testing.T) {
	e := newEnv(t)
	for name, wantType := range map[string]string{"app.js": "text/javascript", "app.css": "text/css", "favicon.svg": "image/svg+xml"} {
		t.Run(name, func(t *testing.T) {
			p := e.get(t, "/ui/assets/"+name)
			if p.status != http.StatusOK || !strings.HasPrefix(p.header.Get("Content-Type"), wantType) {
				t.Fatalf("status %d, Content-Type %q; want 200 and %s", p.status, p.header.Get("Content-Type"), wantType)
			}
			etag := p.header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			if again := e.get(t, "/ui/assets/"+name, "If-None-Match", etag); again.status != http.StatusNotModified {
				t.Errorf("revalidation answered %d, want 304", again.status)
			}
			for _, banned := range []string{"http://", "https://", "//cdn", "eval("} {
				if strings.Contains(strings.ReplaceAll(p.body, "http://www.w3.org/2000/svg", ""), banned) {
					t.Errorf("%s contains %q: it must need no other host", name, banned)
				}
			}
		})
	}
}

// TestPublic checks which requests the API's guard lets through without
// the token: the shells' and assets' GETs, nothing that holds data.
func TestPublic(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		method, target string
		public         bool
	}{
		{"GET", "/", true},
		{"HEAD", "/", true},
		{"GET", "/?status=failed", true},
		{"GET", "/ui/new", true},
		{"GET", "/ui/live", true},
		{"GET", "/ui/compare?base=a&head=b", true},
		{"GET", "/ui/runs/r0001", true},
		{"GET", "/ui/assets/app.js", true},
		// Parts and the API hold data.
		{"GET", "/ui/parts/history", false},
		{"GET", "/ui/parts/runs/r0001", false},
		{"GET", "/runs", false},
		{"GET", "/runs/r0001/report", false},
		{"GET", "/metrics", false},
		// Nothing that changes state, nothing unknown, nothing escaped.
		{"POST", "/", false},
		{"DELETE", "/ui/runs/r0001", false},
		{"GET", "/ui/nope", false},
		{"GET", "/ui/assets/nope.js", false},
		{"GET", "/ui/runs/a/b", false},
		{"GET", "/ui/runs/..", false},
		{"GET", "/ui/../runs", false},
		{"GET", "/ui/%70arts/history", false},
		{"GET", "/ui/runs/r%2F1", false},
	} {
		u, err := url.Parse(tt.target)
		if err != nil {
			t.Fatal(err)
		}
		r := &http.Request{Method: tt.method, URL: u}
		if got := e.pages.Public(r); got != tt.public {
			t.Errorf("Public(%s %s) = %v, want %v", tt.method, tt.target, got, tt.public)
		}
	}
}

func TestNewNeedsStoreAndCompare(t *testing.T) {
	if _, err := web.New(web.Config{}); err == nil {
		t.Error("New without a store: no error")
	}
}

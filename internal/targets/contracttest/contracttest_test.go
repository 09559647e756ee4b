package contracttest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets/contracttest"
	"github.com/threadbench/threadbench/targets/go/server"
)

var goOptions = contracttest.Options{Target: "go", MetricsPath: server.MetricsPath, ThreadModel: bench.ThreadModelGoroutines}

// newGoServer serves the Go target's handler the way server.New does,
// with the goroutine id cached per connection.
func newGoServer(t *testing.T, target string, opts ...server.Option) *httptest.Server {
	t.Helper()
	h := server.NewHandler(target, opts...)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnContext = server.ConnContext
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		h.Close()
	})
	return srv
}

func TestRunGoTarget(t *testing.T) {
	contracttest.Run(t, newGoServer(t, "go").URL, goOptions)
}

// TestRunGoTargetWithDownstream runs the whole contract, fan-out included,
// on a Go target whose downstream is another Go target.
func TestRunGoTargetWithDownstream(t *testing.T) {
	downstream := newGoServer(t, "callee").URL
	opts := goOptions
	opts.Downstream = downstream
	contracttest.Run(t, newGoServer(t, "go", server.WithDownstream(downstream)).URL, opts)
}

func TestCheckGoTarget(t *testing.T) {
	if err := contracttest.Check(context.Background(), newGoServer(t, "go").URL, goOptions); err != nil {
		t.Fatal(err)
	}
}

func TestCheckFindsViolations(t *testing.T) {
	valid := server.NewHandler("go")
	for _, tt := range []struct {
		name    string
		handler http.Handler
		opts    contracttest.Options
		wantErr string // part of the error
	}{
		// A 500 instead of the 400 for a bad parameter.
		{"500 on bad parameter", onPath("/api/heavy", valid, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.RawQuery == "" {
				valid.ServeHTTP(w, r)
				return
			}
			http.Error(w, "internal error", http.StatusInternalServerError)
		}), goOptions, "status 500, want 400"},
		// The 400 is right but its body is text.
		{"400 in text", onPath("/api/heavy", valid, func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "duration must be an integer from 0 to 60000", http.StatusBadRequest)
		}), goOptions, `Content-Type "text/plain"`},
		// The 400's message does not name the parameter.
		{"400 without the parameter", onPath("/api/heavy", valid, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"status":400,"error":"bad request"}`))
		}), goOptions, `does not name the parameter "duration"`},
		// The health endpoint is down.
		{"health down", onPath("/health", valid, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"status":"DOWN"}`))
		}), goOptions, "status 503, want 200"},
		// Another target's name.
		{"wrong target", valid, contracttest.Options{Target: "java-platform", MetricsPath: "/actuator/prometheus", ThreadModel: bench.ThreadModelGoroutines}, `target "go", want "java-platform"`},
		// A Java target is expected: /info says otherwise first.
		{"java expected", valid, contracttest.Options{Target: "go", ThreadModel: bench.ThreadModelPlatform}, `threadModel "goroutines", want "platform"`},
		// A virtual field is expected, as from a Java target, and /info agrees.
		{"virtual absent", onPath("/info", valid, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"target":"go","threadModel":"platform","runtime":"OpenJDK 25","runtimeVersion":"25","framework":"Spring Boot 4.1.1",` +
				`"availableProcessors":1,"memoryLimitBytes":0,"cpuModel":"","knobs":{"gc":"G1","maxHeapBytes":"1","tomcatMaxThreads":"200","virtualParallelism":"1"}}`))
		}), contracttest.Options{Target: "go", ThreadModel: bench.ThreadModelPlatform}, "virtual absent, want false"},
		// No /info.
		{"no info", onPath("/info", valid, http.NotFound), goOptions, "GET /info: status 404, want 200"},
		// No server at all.
		{"nothing listening", nil, goOptions, "connect"},
		// Options that declare no thread model have nothing to check against.
		{"no thread model", valid, contracttest.Options{Target: "go"}, `thread model "" has no contract expectations (known: goroutines, platform, reactive, virtual)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			baseURL := "http://127.0.0.1:1" // nothing listens on port 1
			if tt.handler != nil {
				srv := httptest.NewServer(tt.handler)
				defer srv.Close()
				baseURL = srv.URL
			}
			err := contracttest.Check(context.Background(), baseURL, tt.opts)
			if err == nil {
				t.Fatal("Check passed, want an error")
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

// onPath serves path with fn and everything else with next.
func onPath(path string, next http.Handler, fn http.HandlerFunc) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", next)
	mux.Handle(path, fn)
	return mux
}

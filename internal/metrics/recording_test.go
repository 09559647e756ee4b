package metrics_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
)

// countingTransport counts the scrapes sent.
type countingTransport struct {
	n atomic.Int64
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(req)
}

// scrapes returns a sampler option that counts scrapes, and the count.
func scrapes() (metrics.Option, func() int) {
	ct := &countingTransport{}
	return metrics.WithHTTPClient(&http.Client{Transport: ct}), func() int { return int(ct.n.Load()) }
}

func TestRecording_FailedScrapes(t *testing.T) {
	tests := []struct {
		name     string
		handler  http.HandlerFunc // nil: nothing listens
		interval time.Duration
	}{
		{"500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) }, time.Millisecond},
		{"garbage", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "<html>not metrics</html>") }, time.Millisecond},
		{"connection refused", nil, time.Millisecond},
		{"timeout", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, 20 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := closedPortURL(t)
			if tt.handler != nil {
				srv := httptest.NewServer(tt.handler)
				defer srv.Close()
				url = srv.URL + "/metrics"
			}
			opt, count := scrapes()
			rec := metrics.NewSampler(nil, metrics.WithInterval(tt.interval), opt).Start(t.Context(), metrics.Target{Name: "go", MetricsURL: url})
			waitFor(t, func() bool { return count() > 2 }) // two samples filed
			res := rec.Stop(t.Context(), nil, []bench.StageResult{stage(0, -60, 120, 1000)})

			if res.ScrapeFailures < 2 || res.ScrapeFailures > count() {
				t.Errorf("scrape failures = %d after %d scrapes, want at least 2", res.ScrapeFailures, count())
			}
			if got, want := res.Resources[0].ScrapeFailures, res.ScrapeFailures; got != want {
				t.Errorf("stage scrape failures = %d, want %d", got, want)
			}
			if len(res.Series) != 0 || len(res.Expositions) != 0 {
				t.Errorf("series %v, expositions %d; want none", res.Series, len(res.Expositions))
			}
			if !strings.Contains(res.LastError, "target go") {
				t.Errorf("last error %q does not name the target", res.LastError)
			}
		})
	}
}

// TestRecording_Expositions serves two failures then expositions numbered by
// request: failures are counted, series kept, and the first and last good
// expositions returned.
func TestRecording_Expositions(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n := served.Add(1); n {
		case 1:
			http.Error(w, "starting", http.StatusServiceUnavailable)
		case 2:
			fmt.Fprintln(w, "not metrics")
		default:
			fmt.Fprintf(w, "# TYPE go_goroutines gauge\ngo_goroutines %d\n", n)
		}
	}))
	defer srv.Close()
	// Generous interval: a scrape that timed out would be a third failure.
	rec := metrics.NewSampler(nil, metrics.WithInterval(50*time.Millisecond)).Start(t.Context(), metrics.Target{Name: "go", MetricsURL: srv.URL})
	waitFor(t, func() bool { return served.Load() > 4 })
	res := rec.Stop(t.Context(), nil, nil)

	if got, want := res.ScrapeFailures, 2; got != want {
		t.Errorf("scrape failures = %d, want %d", got, want)
	}
	if len(res.Series) != 1 || res.Series[0].Name != "go_goroutines" {
		t.Fatalf("series %+v, want go_goroutines only", res.Series)
	}
	points := res.Series[0].Points
	last := points[len(points)-1].V
	wantExpo := []bench.Exposition{
		{At: "start", Text: "# TYPE go_goroutines gauge\ngo_goroutines 3\n"},
		{At: "end", Text: fmt.Sprintf("# TYPE go_goroutines gauge\ngo_goroutines %g\n", last)},
	}
	if !reflect.DeepEqual(res.Expositions, wantExpo) {
		t.Errorf("expositions %+v, want %+v", res.Expositions, wantExpo)
	}
	if got, want := points[0].V, 3.0; got != want {
		t.Errorf("first point %v, want %v", got, want)
	}
}

// TestRecording_SetT0 holds the third scrape until the clock's zero is set:
// the samples before it land at negative times, the ones after at positive
// times, and none later than the server saw its request.
func TestRecording_SetT0(t *testing.T) {
	gate := make(chan struct{})
	var served atomic.Int64
	var mu sync.Mutex
	seen := map[int]time.Time{} // request number -> when the server saw it
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n := served.Add(1)
		seen[int(n)] = time.Now()
		mu.Unlock()
		if n == 3 {
			<-gate
		}
		fmt.Fprintf(w, "go_goroutines %d\n", n)
	}))
	defer srv.Close()
	rec := metrics.NewSampler(nil, metrics.WithInterval(200*time.Millisecond)).Start(t.Context(), metrics.Target{Name: "go", MetricsURL: srv.URL})
	waitFor(t, func() bool { return served.Load() == 3 })
	t0 := time.Now()
	rec.SetT0(t0)
	close(gate)
	waitFor(t, func() bool { return served.Load() > 5 })
	res := rec.Stop(t.Context(), nil, nil)
	mu.Lock()
	defer mu.Unlock()

	if len(res.Series) != 1 {
		t.Fatalf("series %+v, want go_goroutines", res.Series)
	}
	for i, p := range res.Series[0].Points {
		n := int(p.V) // the request that produced it, from 1
		if wantNegative := n <= 3; (p.T < 0) != wantNegative {
			t.Errorf("point of request %d at t=%.3f, want negative %t", n, p.T, wantNegative)
		}
		if limit := seen[n].Sub(t0).Seconds(); p.T > limit {
			t.Errorf("point of request %d at t=%.3f, after the server saw it at %.3f", n, p.T, limit)
		}
		if i > 0 && p.T <= res.Series[0].Points[i-1].T {
			t.Errorf("point %d at t=%.3f does not follow %.3f", i, p.T, res.Series[0].Points[i-1].T)
		}
	}
}

// TestRecording_Stop abandons a scrape in flight: Stop returns long before
// the interval is over, counts no failure, and returns the same result when
// called again.
func TestRecording_Stop(t *testing.T) {
	const interval = 10 * time.Second
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		<-r.Context().Done()
	}))
	defer srv.Close()
	rec := metrics.NewSampler(nil, metrics.WithInterval(interval)).Start(t.Context(), metrics.Target{Name: "go", MetricsURL: srv.URL})
	waitFor(t, func() bool { return served.Load() == 1 })

	began := time.Now()
	first := rec.Stop(t.Context(), nil, []bench.StageResult{stage(0, 0, 1, 10)})
	if took := time.Since(began); took >= interval {
		t.Errorf("Stop took %s, want under the %s interval", took, interval)
	}
	if first.ScrapeFailures != 0 {
		t.Errorf("scrape failures = %d, want 0 for an abandoned scrape", first.ScrapeFailures)
	}
	again := rec.Stop(t.Context(), nil, nil)
	if !reflect.DeepEqual(first, again) {
		t.Errorf("second Stop = %+v, want %+v", again, first)
	}
}

// closedPortURL is a metrics URL on a loopback port nothing listens on.
func closedPortURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/metrics"
}

// TestRecording_Latest reads a JVM's compilation time while the recording
// runs: nothing before the first scrape, then the latest scrape's value,
// summed over the series' labels, taken no later than it was read.
func TestRecording_Latest(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		fmt.Fprintf(w, "jvm_compilation_time_ms_total{compiler=\"c1\"} %d\njvm_compilation_time_ms_total{compiler=\"c2\"} %d\n", 10*n, 100*n)
	}))
	defer srv.Close()
	rec := metrics.NewSampler(nil, metrics.WithInterval(20*time.Millisecond)).Start(t.Context(), metrics.Target{Name: "java", MetricsURL: srv.URL})
	defer rec.Stop(t.Context(), nil, nil)
	if _, _, ok := rec.Latest("go_goroutines"); ok {
		t.Errorf("Latest of a series never exposed: ok")
	}
	waitFor(t, func() bool { return served.Load() > 3 })
	at, v, ok := rec.Latest("jvm_compilation_time_ms_total")
	read := time.Now()
	n := float64(served.Load())
	// The value of one scrape, c1's and c2's summed: 110 per scrape served.
	if !ok || v < 110*(n-1) || v > 110*n || int(v)%110 != 0 || at.After(read) {
		t.Errorf("Latest = %v at %v (ok %v) after %v scrapes, want one scrape's 110 × n, taken by %v", v, at, ok, n, read)
	}
}

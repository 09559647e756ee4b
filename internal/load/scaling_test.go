package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/threadbench/threadbench/internal/bench"
)

// instantTransport answers every request at once with the Go target's
// /api/light body, without the network.
type instantTransport struct{ body []byte }

func (t instantTransport) RoundTrip(_ *fasthttp.HostClient, _ *fasthttp.Request, resp *fasthttp.Response) (bool, error) {
	resp.SetStatusCode(fasthttp.StatusOK)
	resp.Header.SetContentType("application/json")
	resp.SetBodyRaw(t.body)
	return false, nil
}

// BenchmarkOpenModelMachinery sends the open model at a rate no generator
// keeps, to a transport that answers at once: what is left is the
// engine's own work per request (claiming, timing, recording, fasthttp's
// request and response handling), without the kernel's. Run with -cpu 1,2
// to see how that part spreads over a second CPU:
//
//	go test ./internal/load -run '^$' -bench OpenModelMachinery -benchtime 1x -cpu 1,2
func BenchmarkOpenModelMachinery(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	b.Cleanup(srv.Close)
	e := NewEngine(WithConnections(256))
	e.transport = instantTransport{body: []byte(`{"target":"go","endpoint":"light","durationMs":0,"thread":"goroutine 18"}`)}
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light", Weight: 1}}, Timeout: bench.Duration(5 * time.Second)},
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: bench.Duration(2 * time.Second), Rate: 5_000_000}}},
		Warmup:   bench.Warmup{Disabled: true},
	}
	var sent, seconds float64
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		res, _ := e.Run(ctx, srv.URL, plan, bench.Observer{})
		cancel()
		sent += float64(res.Total.Successes)
		seconds += res.Total.Elapsed.D().Seconds()
	}
	b.ReportMetric(sent/seconds, "req/s")
	b.ReportMetric(seconds*1e9/sent, "ns/req")
}

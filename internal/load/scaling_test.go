package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/threadbench/threadbench/internal/bench"
)

// instantTransport answers every request at once with the Go target's
// /api/light body, without the network.
// With work set, each request first keeps its CPU busy for that many
// rounds of arithmetic, as the kernel's share of a real request does.
type instantTransport struct {
	body []byte
	work int
}

// sink keeps the transport's arithmetic from being optimised away.
var sink atomic.Uint64

func (t instantTransport) RoundTrip(_ *fasthttp.HostClient, _ *fasthttp.Request, resp *fasthttp.Response) (bool, error) {
	x := uint64(1)
	for i := range t.work {
		x = x*6364136223846793005 + uint64(i)
	}
	if t.work > 0 {
		sink.Add(x & 1)
	}
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
	benchmarkOpenModel(b, 0, 5_000_000)
}

// BenchmarkOpenModelSpread is the same with about 10 µs of CPU in each
// request (spreadWork rounds; the log says how long they took here), about
// what the kernel's write and read cost a request on loopback: at -cpu 2
// the engine should carry nearly twice the requests of -cpu 1 if its own
// locks do not serialize the workers. Run each -cpu in a process of its
// own (one -cpu 1,2 run carried over the second CPU's pace):
//
//	for c in 1 2; do go test ./internal/load -run '^$' -bench OpenModelSpread -benchtime 2x -cpu $c; done
func BenchmarkOpenModelSpread(b *testing.B) {
	start := time.Now()
	instantTransport{work: spreadWork * 100}.RoundTrip(nil, nil, &fasthttp.Response{})
	b.Logf("the work in each request takes %v here", time.Since(start)/100)
	benchmarkOpenModel(b, spreadWork, 1_000_000)
}

// spreadWork is about 10 µs of arithmetic on a 3 GHz core.
const spreadWork = 10_000

func benchmarkOpenModel(b *testing.B, work int, rate float64) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	b.Cleanup(srv.Close)
	e := NewEngine(WithConnections(256))
	e.transport = instantTransport{body: []byte(`{"target":"go","endpoint":"light","durationMs":0,"thread":"goroutine 18"}`), work: work}
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light", Weight: 1}}, Timeout: bench.Duration(5 * time.Second)},
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: bench.Duration(2 * time.Second), Rate: rate}}},
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

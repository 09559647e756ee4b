package load_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
)

// slowServer answers after 40 ms, as net/http's server with the given
// timeouts: readHeader runs from a connection's accept until its first
// request's headers (the Go target's ReadHeaderTimeout, 10 s there), idle
// between a response and the next request.
func slowServer(t *testing.T, readHeader, idle time.Duration) *httptest.Server {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(40 * time.Millisecond)
		_, _ = w.Write([]byte(body))
	}))
	srv.Config.ReadHeaderTimeout, srv.Config.IdleTimeout = readHeader, idle
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// No error the target did not make: connections the target closed while
// they carried no request are not sent on. A target closes a connection
// that has carried no request after its header timeout (here 300 ms), and
// one idle after a response after its idle timeout; the attack's first
// stage needs one connection, its last about twenty (500 req/s, 40 ms
// each), later than either timeout: they must come from connections still
// open, or new ones. Before the wire checked, the first case failed
// about twenty requests as "the target closed the connection before
// answering" (the Go target's 10 s ReadHeaderTimeout, second 16 of an
// 8,000 req/s run), and the second as many.
func TestNoRequestOnAConnectionTheTargetClosed(t *testing.T) {
	for _, tc := range []struct {
		name             string
		readHeader, idle time.Duration
		stages           []bench.Stage
	}{
		// primed before the clock, unused for 1.5 s
		{"primed", 300 * time.Millisecond, time.Minute,
			[]bench.Stage{{Duration: sec(1.5), Rate: 10}, {Duration: sec(0.5), Rate: 500}}},
		// used by a burst, then idle for 1.5 s
		{"idle after a burst", time.Minute, 300 * time.Millisecond,
			[]bench.Stage{{Duration: sec(0.5), Rate: 500}, {Duration: sec(1.5), Rate: 0}, {Duration: sec(0.5), Rate: 500}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := slowServer(t, tc.readHeader, tc.idle)
			plan := bench.Plan{
				Workload: workload(bench.Request{Endpoint: "light", Weight: 1}),
				Profile:  bench.Profile{Model: bench.ModelOpen, Connections: 64, Stages: tc.stages},
				Warmup:   bench.Warmup{Disabled: true},
			}
			res, err := load.NewEngine().Run(context.Background(), srv.URL, plan, bench.Observer{})
			if err != nil {
				t.Fatal(err)
			}
			last := res.Stages[len(res.Stages)-1]
			t.Logf("last stage: %d requests, %d succeeded, errors %+v, generator %+v", last.Stats.Requests, last.Stats.Successes, res.Total.Errors, *last.Generator)
			if res.Total.Successes != res.Total.Requests || len(res.Total.Errors) > 0 {
				t.Errorf("%d of %d requests failed: %+v; the target closed only connections that carried no request", res.Total.Requests-res.Total.Successes, res.Total.Requests, res.Total.Errors)
			}
			if last.Stats.Requests < 200 {
				t.Errorf("the last stage sent %d requests, want its 250", last.Stats.Requests)
			}
		})
	}
}

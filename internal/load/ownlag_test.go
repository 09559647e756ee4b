package load_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
)

// A generator starved of its CPU sends late with connections free: its
// own scheduling lag flags the window generator-bound, and no request
// waited for a connection. Here one P and a goroutine that never yields
// but to the runtime's 10 ms preemption stand for the starved generator.
func TestStarvedGeneratorIsLateByItself(t *testing.T) {
	srv := newServer(t, 0)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var stop atomic.Bool
	defer stop.Store(true)
	go func() {
		for n := 0; !stop.Load(); n++ {
			_ = n * n
		}
	}()
	plan := bench.Plan{
		Workload: workload(bench.Request{Endpoint: "light", Weight: 1}),
		Profile:  bench.Profile{Model: bench.ModelOpen, Connections: 64, Stages: []bench.Stage{{Duration: sec(1), Rate: 500}}},
		Warmup:   bench.Warmup{Disabled: true},
	}
	res, err := load.NewEngine().Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Stages[0]
	t.Logf("generator %+v, flags %+v", *s.Generator, s.Flags)
	if g := s.Generator; g.SchedulingLagP99 <= bench.SendLagBoundMs || g.ConnectionWaitP99 > 1 {
		t.Errorf("scheduling lag p99 %.1f ms, connection wait p99 %.1f ms: want the lag the generator's own (over %.0f ms), no wait", g.SchedulingLagP99, g.ConnectionWaitP99, bench.SendLagBoundMs)
	}
	if !hasFlag(s.Flags, bench.FlagGeneratorBound, "scheduling lag") || hasFlag(s.Flags, bench.FlagConnectionBound, "") {
		t.Errorf("flags %+v, want generator-bound by its scheduling lag and not connection-bound", s.Flags)
	}
}

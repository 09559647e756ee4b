package runner_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
	"github.com/threadbench/threadbench/internal/runner"
)

// fakeLog is a ResponseLog in memory.
type fakeLog struct {
	mu      sync.Mutex
	written map[string][]bench.Response
	closed  map[string]bool
}

var _ bench.ResponseLog = (*fakeLog)(nil)

func (l *fakeLog) Open(_ bench.RunSpec, target string) (bench.ResponseWriter, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written == nil {
		l.written, l.closed = map[string][]bench.Response{}, map[string]bool{}
	}
	l.written[target] = []bench.Response{}
	return &fakeWriter{log: l, target: target}, nil
}

type fakeWriter struct {
	log    *fakeLog
	target string
}

func (w *fakeWriter) Write(r bench.Response) {
	w.log.mu.Lock()
	defer w.log.mu.Unlock()
	w.log.written[w.target] = append(w.log.written[w.target], r)
}

func (w *fakeWriter) Close() error {
	w.log.mu.Lock()
	defer w.log.mu.Unlock()
	w.log.closed[w.target] = true
	return nil
}

func TestExecute_ResponsesLoggedPerTarget(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	log := &fakeLog{}
	r := runner.New(runner.Config{Targets: &fakeRuntime{}, Store: st, Attacker: load.NewEngine(), Responses: log,
		LockPath: t.TempDir() + "/attack.lock", CPUs: 1})
	run := createRun(t, st, shortSpec(t, "go", "java-virtual"))
	if err := r.Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"go", "java-virtual"} {
		got, tr := log.written[target], run.Target(target)
		if !log.closed[target] {
			t.Errorf("%s: log not closed", target)
		}
		// every measured request, the warm-up's left out
		if tr.Total == nil || int64(len(got)) != tr.Total.Requests {
			t.Fatalf("%s: %d responses logged, the run measured %v", target, len(got), tr.Total)
		}
		r := got[0]
		if r.Method != "GET" || r.Code != 200 || r.Latency <= 0 || time.Since(r.Timestamp) > time.Minute || r.BytesIn == 0 {
			t.Errorf("%s: first response %+v", target, r)
		}
	}
}

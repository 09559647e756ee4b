package database

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// TestRecording samples a fake server that fails every third sample.
func TestRecording(t *testing.T) {
	var calls atomic.Int64
	read := func(context.Context, *sql.DB) (sample, error) {
		n := calls.Add(1)
		if n%3 == 0 {
			return sample{}, fmt.Errorf("sample %d failed", n)
		}
		s := newSample()
		s.addSession(bench.DatabaseActive, "", 2)
		s.transactions = float64(10 * n)
		return s, nil
	}
	rec := newRecording(read, "Fake", 5*time.Millisecond)
	rec.start(context.Background())
	for calls.Load() < 9 {
		time.Sleep(time.Millisecond)
	}
	t0 := time.Now()
	rec.SetT0(t0)
	res := rec.Stop(context.Background(), nil, []bench.StageResult{{Index: 0, StartOffset: bench.Duration(-time.Minute), Duration: bench.Duration(2 * time.Minute)}})

	// A sample that Stop cut short (the last read, which may be a failing
	// one: a clean clone's make test cut the ninth) is neither a sample
	// nor a failure; of the reads kept, every third failed.
	made, st := int(calls.Load()), res.Stages[0]
	if kept := res.Failures + st.Samples; kept < made-1 || kept > made || kept < 8 || res.Failures != kept/3 {
		t.Errorf("%d failures and %d samples of %d reads, want every third of those kept a failure, the last read at most cut short", res.Failures, st.Samples, made)
	}
	if !strings.HasPrefix(res.LastError, "Fake: sample ") {
		t.Errorf("last error = %q, want the fake's", res.LastError)
	}
	if st.Connections[bench.DatabaseActive] != (bench.Gauge{Peak: 2, Mean: 2}) {
		t.Errorf("stage = %+v, want 2 active sessions", st)
	}
	for _, s := range res.Series {
		if last := s.Points[len(s.Points)-1]; last.T > 0 {
			t.Errorf("series %s ends at %g s: the samples were taken before t0, want T < 0", s.Name, last.T)
		}
	}
	if again := rec.Stop(context.Background(), nil, nil); len(again.Stages) != 1 {
		t.Errorf("a second Stop summarised %d stages, want the first call's result", len(again.Stages))
	}
	if after := calls.Load(); after != int64(made) {
		t.Errorf("%d samples after Stop", after-int64(made))
	}
}

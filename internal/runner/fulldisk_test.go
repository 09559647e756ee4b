package runner_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// fillingStore is a real store whose disk fills after its first writes:
// from then on it refuses every update that does not finish a run, as the
// store does once its disk is full and only its reserve is left.
type fillingStore struct {
	bench.RunStore
	mu      sync.Mutex
	room    int // updates that still fit
	refused int
}

var _ bench.RunStore = (*fillingStore)(nil)

func (s *fillingStore) UpdateRun(ctx context.Context, run *bench.Run) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !run.Status.Finished() {
		if s.room == 0 {
			s.refused++
			return bench.Errorf(bench.EUNAVAILABLE, "no space left on device for the run history /h/history.db: the file system at /h has 0.0 MiB free of 8.0 MiB; free some space there and try again")
		}
		s.room--
	}
	return s.RunStore.UpdateRun(ctx, run)
}

// A run whose results the disk has no room for fails with the store's
// words, the targets it did not reach skipped, instead of staying
// running: the write that finishes it still fits.
func TestExecute_DiskFullFailsTheRunNamingIt(t *testing.T) {
	t.Parallel()
	st := &fillingStore{RunStore: newStore(t), room: 2} // running, then the first target's start
	rt := &fakeRuntime{}
	run := createRun(t, st, shortSpec(t, "go", "java-virtual"))

	if err := newRunner(t, rt, st).Execute(context.Background(), run); err != nil {
		t.Fatalf("Execute: %v, want the failure recorded", err)
	}
	got, err := st.FindRunByID(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the run's error: %s", got.Error)
	if got.Status != bench.RunFailed || !strings.HasPrefix(got.Error, "the run could not be stored: no space left on device for the run history /h/history.db") {
		t.Errorf("run = %s %q, want failed naming the history's disk", got.Status, got.Error)
	}
	if tr := got.Target("java-virtual"); tr.Status != bench.TargetSkipped {
		t.Errorf("java-virtual = %s, want skipped: the run stops at a disk that is full", tr.Status)
	}
	if st.refused != 1 {
		t.Errorf("%d updates refused, want 1: nothing after the first", st.refused)
	}
	if stopped := rt.stoppedTargets(); len(stopped) != 1 || stopped[0] != "go" {
		t.Errorf("stopped %v, want [go]", stopped)
	}
}

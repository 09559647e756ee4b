package runner_test

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
	"github.com/threadbench/threadbench/internal/runner"
	"github.com/threadbench/threadbench/internal/spec"
	"github.com/threadbench/threadbench/internal/store"
)

func newQueue(t *testing.T, st runner.QueueStore, rt *fakeRuntime, lockPath string) *runner.Queue {
	t.Helper()
	cfg := runner.Config{Targets: rt, Attacker: load.NewEngine(), LockPath: lockPath, CPUs: 1}
	prepare := func(rs bench.RunSpec) ([]bench.RunSpec, error) { return spec.PrepareRuns(rs, catalog) }
	return runner.NewQueue(cfg, st, prepare, 2)
}

func TestQueue_RefusesWhenFull(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	q := newQueue(t, st, &fakeRuntime{}, t.TempDir()+"/lock") // not opened: nothing leaves the queue
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if _, err := q.Submit(ctx, shortSpec(t, "go")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Submit(ctx, shortSpec(t, "go")); bench.ErrorCode(err) != bench.EUNAVAILABLE {
		t.Errorf("submit past the queue's length: %v, want unavailable", err)
	}
	if got := q.QueueLength(); got != 2 {
		t.Errorf("queue length = %d, want 2", got)
	}
}

func waitStatus(t *testing.T, st bench.RunStore, id string, want bench.RunStatus) *bench.Run {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		run, err := st.FindRunByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if run.Status == want {
			return run
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("run %s never became %s", id, want)
	return nil
}

func TestQueue_RunsInOrderAndCancelsQueued(t *testing.T) {
	t.Parallel()
	st, rt := newStore(t), &fakeRuntime{}
	q := newQueue(t, st, rt, t.TempDir()+"/lock")
	if err := q.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer q.Close(context.Background())
	ctx := context.Background()
	first, err := q.Submit(ctx, shortSpec(t, "go"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := q.Submit(ctx, shortSpec(t, "go"))
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, st, first.ID, bench.RunRunning) // the queue now holds second only
	third, err := q.Submit(ctx, shortSpec(t, "go"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Cancel(ctx, third.ID); err != nil {
		t.Fatal(err)
	}
	a, b := waitStatus(t, st, first.ID, bench.RunSucceeded), waitStatus(t, st, second.ID, bench.RunSucceeded)
	if !b.StartedAt.After(*a.FinishedAt) {
		t.Errorf("second started %s before first finished %s", b.StartedAt, a.FinishedAt)
	}
	if c := waitStatus(t, st, third.ID, bench.RunCanceled); c.StartedAt != nil {
		t.Error("cancelled queued run was started")
	}
	if _, err := q.Cancel(ctx, first.ID); bench.ErrorCode(err) != bench.ECONFLICT {
		t.Errorf("cancel of a finished run: %v, want conflict", err)
	}
	if _, err := q.Submit(ctx, bench.RunSpec{Targets: []string{"nope"}}); bench.ErrorCode(err) != bench.EINVALID {
		t.Errorf("submit of a bad spec: %v, want invalid", err)
	}
}

func TestQueue_OpenInterruptsOrphanedRunsOnlyWhenNoRunExecutes(t *testing.T) {
	t.Parallel()
	st, rt := newStore(t), &fakeRuntime{}
	lockPath := t.TempDir() + "/lock"
	orphan := createRun(t, st, shortSpec(t, "go"))
	orphan.Status = bench.RunRunning
	if err := st.UpdateRun(context.Background(), orphan); err != nil {
		t.Fatal(err)
	}

	// Another process is executing a run: its "running" run is alive.
	held, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(held.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	q := newQueue(t, st, rt, lockPath)
	if err := q.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer q.Close(context.Background())
	if run, _ := st.FindRunByID(context.Background(), orphan.ID); run.Status != bench.RunRunning || rt.cleanups != 0 {
		t.Fatalf("with the host lock held: run %s, %d cleanups; want it left running and no containers removed", run.Status, rt.cleanups)
	}
	held.Close() // that process is gone

	// The queue recovers as soon as it first holds the lock itself.
	next, err := q.Submit(context.Background(), shortSpec(t, "go"))
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, st, next.ID, bench.RunSucceeded)
	run := waitStatus(t, st, orphan.ID, bench.RunInterrupted)
	if run.Error == "" || rt.cleanups != 1 {
		t.Errorf("interrupted run has reason %q and %d cleanups, want a reason and 1", run.Error, rt.cleanups)
	}
}

// A recovery that fails (the engine did not answer) is tried again when the
// queue next holds the host lock, until it succeeds once.
func TestQueue_RecoveryRetriedUntilItSucceeds(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	rt := &fakeRuntime{cleanupErrs: []error{errors.New("engine busy")}}
	q := newQueue(t, st, rt, t.TempDir()+"/lock")
	if err := q.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer q.Close(context.Background())
	for range 2 {
		run, err := q.Submit(context.Background(), shortSpec(t, "go"))
		if err != nil {
			t.Fatal(err)
		}
		waitStatus(t, st, run.ID, bench.RunSucceeded)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.cleanups != 2 {
		t.Errorf("%d cleanups, want 2: the failed one at Open, the one retried at the first run, none after", rt.cleanups)
	}
}

// cancelOnFirstRead is a store whose first FindRunByID (the queue's read of
// the run it has just made current) first cancels that run.
type cancelOnFirstRead struct {
	*store.DB
	read   atomic.Bool
	cancel func(id string)
}

func (s *cancelOnFirstRead) FindRunByID(ctx context.Context, id string) (*bench.Run, error) {
	if !s.read.Swap(true) {
		s.cancel(id) // it reads the run too: not again
	}
	return s.DB.FindRunByID(ctx, id)
}

// A cancel that lands as the queue takes the run up (current, not yet
// running) ends it canceled; the run is never left queued.
func TestQueue_CancelAsTheRunIsTakenUp(t *testing.T) {
	t.Parallel()
	st := &cancelOnFirstRead{DB: newStore(t)}
	q := newQueue(t, st, &fakeRuntime{}, t.TempDir()+"/lock")
	st.cancel = func(id string) {
		if _, err := q.Cancel(context.Background(), id); err != nil {
			t.Errorf("cancel: %v", err)
		}
	}
	if err := q.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer q.Close(context.Background())
	run, err := q.Submit(context.Background(), shortSpec(t, "go"))
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, st, run.ID, bench.RunCanceled)
}

// A daemon that stops cancels the running run and leaves the queued ones
// queued for its next start: taking the next one up as the first ends must
// not record it canceled.
func TestQueue_CloseLeavesQueuedRunsQueued(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	q := newQueue(t, st, &fakeRuntime{}, t.TempDir()+"/lock")
	if err := q.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err := q.Submit(ctx, shortSpec(t, "go"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := q.Submit(ctx, shortSpec(t, "go"))
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, st, first.ID, bench.RunRunning)
	if err := q.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, st, first.ID, bench.RunCanceled)
	got, err := st.FindRunByID(ctx, second.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != bench.RunQueued || got.StartedAt != nil {
		t.Errorf("queued run after the daemon stopped: %s (started %v), want still queued", got.Status, got.StartedAt)
	}
}

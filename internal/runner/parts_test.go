package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
	"github.com/threadbench/threadbench/internal/runner"
)

// newPartsQueue is a queue whose preparer makes every spec an experiment of
// the given parts, each a short run of target: the queue's handling of
// parts, without the seed experiments' minutes of load.
func newPartsQueue(t *testing.T, st runner.QueueStore, rt *fakeRuntime, maxQueue int, parts ...string) *runner.Queue {
	t.Helper()
	cfg := runner.Config{Targets: rt, Attacker: load.NewEngine(), LockPath: t.TempDir() + "/lock", CPUs: 1}
	prepare := func(spec bench.RunSpec) ([]bench.RunSpec, error) {
		var specs []bench.RunSpec
		for _, part := range parts {
			s := shortSpec(t, spec.Targets...)
			s.Experiment = &bench.ExperimentRef{Name: "x", Part: part}
			specs = append(specs, s)
		}
		return specs, nil
	}
	return runner.NewQueue(cfg, st, prepare, maxQueue)
}

// Each part of an experiment is a run of its own, queued together and run
// in order; each lists them all.
func TestQueue_PartsRunInOrder(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	q := newPartsQueue(t, st, &fakeRuntime{}, 0, "a", "b")
	first, err := q.Submit(context.Background(), bench.RunSpec{Targets: []string{"go"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Parts) != 2 || first.Parts[0] != first.ID || first.Spec.Experiment.Part != "a" {
		t.Fatalf("first run %s of part %q lists parts %v, want itself first of two", first.ID, first.Spec.Experiment.Part, first.Parts)
	}
	q.Start()
	defer q.Close(context.Background())
	a := waitStatus(t, st, first.Parts[0], bench.RunSucceeded)
	b := waitStatus(t, st, first.Parts[1], bench.RunSucceeded)
	if b.Spec.Experiment.Part != "b" || b.StartedAt.Before(*a.FinishedAt) {
		t.Errorf("second run is part %q, started %v, before the first finished %v", b.Spec.Experiment.Part, b.StartedAt, a.FinishedAt)
	}
	if len(b.Parts) != 2 || b.Parts[0] != a.ID || b.Parts[1] != b.ID {
		t.Errorf("second run lists parts %v, want [%s %s]", b.Parts, a.ID, b.ID)
	}
}

// A part that fails cancels the parts after it, saying why: the
// experiment's table is made of them all, and the CLI stops there.
func TestQueue_FailedPartCancelsLaterParts(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	q := newPartsQueue(t, st, &fakeRuntime{startErr: map[string]error{"go": errNoImage}}, 0, "a", "b", "c")
	first, err := q.Submit(context.Background(), bench.RunSpec{Targets: []string{"go"}})
	if err != nil {
		t.Fatal(err)
	}
	q.Start()
	defer q.Close(context.Background())
	waitStatus(t, st, first.ID, bench.RunFailed)
	for _, id := range first.Parts[1:] {
		run := waitStatus(t, st, id, bench.RunCanceled)
		if want := "canceled before it started: the experiment's part a (run " + first.ID + ") failed"; run.Error != want || run.StartedAt != nil {
			t.Errorf("later part %s: %q (started %v), want %q", id, run.Error, run.StartedAt, want)
		}
	}
}

// Cancelling a queued part cancels the parts after it, not those before.
func TestQueue_CancelQueuedPartCancelsLaterParts(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	q := newPartsQueue(t, st, &fakeRuntime{}, 0, "a", "b", "c") // never started: every part stays queued
	first, err := q.Submit(context.Background(), bench.RunSpec{Targets: []string{"go"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Cancel(context.Background(), first.Parts[1]); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bench.RunStatus{bench.RunQueued, bench.RunCanceled, bench.RunCanceled} {
		if run, err := st.FindRunByID(context.Background(), first.Parts[i]); err != nil || run.Status != want {
			t.Errorf("part %d: %v %v, want %s", i, run.Status, err, want)
		}
	}
	if got := q.QueueLength(); got != 1 {
		t.Errorf("queue length %d, want 1", got)
	}
	if _, err := q.Cancel(context.Background(), first.Parts[2]); bench.ErrorCode(err) != bench.ECONFLICT {
		t.Errorf("cancelling a part cancelled already: %v, want a conflict", err)
	}
}

// An experiment's parts go in line together or not at all: refused while
// the queue is full, and refused as bad input when they never fit.
func TestQueue_PartsNeedRoomForAll(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	q := newPartsQueue(t, st, &fakeRuntime{}, 2, "a", "b")
	ctx := context.Background()
	if _, err := q.Submit(ctx, bench.RunSpec{Targets: []string{"go"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Submit(ctx, bench.RunSpec{Targets: []string{"go"}}); bench.ErrorCode(err) != bench.EUNAVAILABLE || bench.RetryAfter(err) == 0 {
		t.Errorf("two parts into a full queue: %v, want unavailable with a Retry-After", err)
	}
	three := newPartsQueue(t, st, &fakeRuntime{}, 2, "a", "b", "c")
	_, err := three.Submit(ctx, bench.RunSpec{Targets: []string{"go"}})
	var be *bench.Error
	if bench.ErrorCode(err) != bench.EINVALID || !strings.Contains(bench.ErrorMessage(err), "3 parts are more runs than the queue holds (2)") {
		t.Errorf("three parts into a queue of two: %v, want invalid", err)
	} else if be, _ = err.(*bench.Error); be.Field != "experiment.part" {
		t.Errorf("field %q, want experiment.part", be.Field)
	}
	if runs, _, _ := st.FindRunSummaries(ctx, bench.RunFilter{}); len(runs) != 2 {
		t.Errorf("%d runs stored, want the first submission's 2 only", len(runs))
	}
}

// A queue started with Start runs what it is given and nothing else: a
// run another process left queued stays queued, one it left running is
// not marked interrupted, and no container is removed.
func TestQueue_StartTakesUpOnlyItsOwnRuns(t *testing.T) {
	t.Parallel()
	st, rt := newStore(t), &fakeRuntime{}
	ctx := context.Background()
	foreign := createRun(t, st, shortSpec(t, "go"))
	orphan := createRun(t, st, shortSpec(t, "go"))
	orphan.Status = bench.RunRunning
	if err := st.UpdateRun(ctx, orphan); err != nil {
		t.Fatal(err)
	}
	q := newQueue(t, st, rt, t.TempDir()+"/lock")
	own, err := q.Submit(ctx, shortSpec(t, "go"))
	if err != nil {
		t.Fatal(err)
	}
	q.Start()
	waitStatus(t, st, own.ID, bench.RunSucceeded)
	if err := q.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bench.RunStatus{foreign.ID: bench.RunQueued, orphan.ID: bench.RunRunning} {
		if run, _ := st.FindRunByID(ctx, id); run.Status != want {
			t.Errorf("run %s of another process: %s, want %s", id, run.Status, want)
		}
	}
	if own.Parts != nil {
		t.Errorf("a run of its own lists parts %v", own.Parts)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.cleanups != 0 {
		t.Errorf("%d cleanups, want none", rt.cleanups)
	}
}

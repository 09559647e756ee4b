package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// QueueStore is the history a queue needs: the run store plus the two
// queries that make restarts safe.
type QueueStore interface {
	bench.RunStore
	// CreateRuns stores the runs of one submission, all or none; when there
	// are several, each one's Parts lists them all, in order.
	CreateRuns(ctx context.Context, runs []*bench.Run) error
	// InterruptRunning marks runs a previous process left running as
	// interrupted and returns their IDs.
	InterruptRunning(ctx context.Context, reason string) ([]string, error)
	// QueuedRuns returns queued runs, oldest first.
	QueuedRuns(ctx context.Context) ([]*bench.Run, error)
}

// Preparer validates a spec and fills its defaults, returning the specs of
// the runs it asks for (spec.PrepareRuns bound to the catalog and
// guardrails: one per part of an experiment of several parts), or an
// EINVALID error naming the field.
type Preparer func(spec bench.RunSpec) ([]bench.RunSpec, error)

// interruptedReason is recorded on runs a dead process left running.
const interruptedReason = "the orchestrator stopped while this run was running (crash or kill); its containers were removed"

// Queue runs submitted runs one at a time, first in, first out.
type Queue struct {
	runner   *Runner
	store    QueueStore
	prepare  Preparer
	maxQueue int

	// recovering guards recovered: one recovery at a time, apart from mu,
	// which the API's calls take and which no engine call may hold.
	recovering sync.Mutex
	recovered  bool

	mu        sync.Mutex
	pending   []string
	current   string
	currentBy time.Time // when the current run is planned to end ("" when unknown)
	cancelRun context.CancelFunc
	wake      chan struct{}

	cancel context.CancelFunc
	done   chan struct{}
}

// NewQueue returns a queue whose runner is made from cfg (its store is the
// queue's, its OnLocked the queue's recovery); Open starts it.
func NewQueue(cfg Config, store QueueStore, prepare Preparer, maxQueue int) *Queue {
	q := &Queue{store: store, prepare: prepare, maxQueue: maxQueue, wake: make(chan struct{}, 1)}
	cfg.Store = store
	cfg.OnLocked = q.recoverLocked
	q.runner = New(cfg)
	return q
}

// Runner returns the runner that executes the queue's runs.
func (q *Queue) Runner() *Runner { return q.runner }

// Open recovers from a previous process (runs it left running are marked
// interrupted and every container of ours is removed), puts the runs it left
// queued back in line, and starts executing.
func (q *Queue) Open(ctx context.Context) error {
	if err := q.recover(ctx); err != nil {
		return err
	}
	queued, err := q.store.QueuedRuns(ctx)
	if err != nil {
		return fmt.Errorf("load queued runs: %w", err)
	}
	for _, run := range queued {
		q.pending = append(q.pending, run.ID)
	}
	q.start()
	return nil
}

// Start starts executing the runs submitted to this queue, and only those:
// unlike Open it neither recovers what a previous process left running nor
// takes up the runs it left queued, which are a daemon's to run. A CLI
// run, which may share its history with a daemon, goes through it.
func (q *Queue) Start() {
	q.recovering.Lock()
	q.recovered = true // nothing to recover: no run of another process is this queue's
	q.recovering.Unlock()
	q.start()
}

func (q *Queue) start() {
	loopCtx, cancel := context.WithCancel(context.Background())
	q.cancel, q.done = cancel, make(chan struct{})
	go q.loop(loopCtx)
	q.signal()
}

// recover marks runs a dead process left running as interrupted and removes
// every container of ours. It does so only while no run executes on this
// host (the attack lock is free): a run another process is executing right
// now is alive, whatever the database says, and so are its containers. If
// the lock is busy, recovery waits until this queue first holds it.
func (q *Queue) recover(ctx context.Context) error {
	lock := hostLock{path: q.runner.cfg.LockPath}
	free, err := lock.tryAcquire()
	if err != nil {
		return err
	}
	if !free {
		q.runner.log.Info("another run is executing on this host; recovery of interrupted runs waits until this daemon holds the host lock")
		return nil
	}
	defer lock.release()
	q.recoverLocked(ctx)
	return nil
}

// recoverTimeout bounds one attempt at recovery.
const recoverTimeout = time.Minute

// recoverLocked does the recovery with the host lock held, until it has
// succeeded once. It is not the run's to cancel: a run cancelled just as it
// took the lock must not leave the leftovers in place for good.
func (q *Queue) recoverLocked(ctx context.Context) {
	q.recovering.Lock()
	defer q.recovering.Unlock()
	if q.recovered {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recoverTimeout)
	defer cancel()
	ids, err := q.store.InterruptRunning(ctx, interruptedReason)
	if err != nil {
		q.runner.log.Error("mark interrupted runs", "err", err)
		return
	}
	n, err := q.runner.cfg.Targets.Cleanup(ctx)
	if err != nil {
		q.runner.log.Warn("remove leftover containers", "err", err)
		return
	}
	q.recovered = true
	if n > 0 || len(ids) > 0 {
		q.runner.log.Info("recovered from previous process", "interrupted", ids, "containersRemoved", n)
	}
}

// Close cancels the running run (it is recorded as canceled and its
// container removed) and waits for it; queued runs stay queued for the next
// Open.
func (q *Queue) Close(ctx context.Context) error {
	if q.cancel == nil {
		return nil
	}
	q.cancel()
	select {
	case <-q.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("queue did not stop in time: %w", ctx.Err())
	}
}

// Submit validates a spec, stores the runs it asks for as queued and puts
// them in line, all or none: one run, or one per part of an experiment of
// several parts, each listing them all (Parts). It returns the first.
func (q *Queue) Submit(ctx context.Context, spec bench.RunSpec) (*bench.Run, error) {
	specs, err := q.prepare(spec)
	if err != nil {
		return nil, err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.checkRoom(len(specs)); err != nil {
		return nil, err
	}
	runs := make([]*bench.Run, len(specs))
	for i, s := range specs {
		runs[i] = &bench.Run{Name: s.Name, Status: bench.RunQueued, Spec: s}
	}
	if err := q.store.CreateRuns(ctx, runs); err != nil {
		return nil, err
	}
	for _, run := range runs {
		q.pending = append(q.pending, run.ID)
	}
	q.signal()
	return runs[0], nil
}

// checkRoom refuses runs the queue has no room for: EUNAVAILABLE with a
// Retry-After while it is full, EINVALID for more parts than it ever holds.
// Called with q.mu held.
func (q *Queue) checkRoom(runs int) error {
	switch {
	case q.maxQueue <= 0 || len(q.pending)+runs <= q.maxQueue:
		return nil
	case runs > q.maxQueue:
		return bench.FieldErrorf("experiment.part", "the experiment's %d parts are more runs than the queue holds (%d): submit one part at a time", runs, q.maxQueue)
	}
	wait := q.retryAfter(time.Now())
	return &bench.Error{Code: bench.EUNAVAILABLE, RetryAfter: wait,
		Message: fmt.Sprintf("the run queue is full (%d runs waiting); try again in %s", len(q.pending), wait)}
}

// Cancel cancels a queued or running run. A running run is stopped within a
// second and its container removed; the returned document may still say
// running until the runner has recorded the cancellation. The parts queued
// after a part cancelled are cancelled with it (cancelLaterParts).
func (q *Queue) Cancel(ctx context.Context, id string) (*bench.Run, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	// Read under the lock, so that a run cancelled meanwhile (a later part
	// of one that failed) is seen as it is.
	run, err := q.store.FindRunByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if run.Status.Finished() {
		return nil, bench.Errorf(bench.ECONFLICT, "run %s already %s", id, run.Status)
	}
	if q.current == id {
		q.cancelRun()
		return run, nil
	}
	if err := q.cancelQueuedLocked(ctx, run, "canceled before it started"); err != nil {
		return nil, err
	}
	q.cancelLaterLocked(ctx, run)
	return run, nil
}

// cancelLaterParts cancels the parts still queued after a part that did not
// succeed: an experiment's parts make one table, in order, and a run of the
// CLI has always stopped at the first part that failed.
func (q *Queue) cancelLaterParts(ctx context.Context, run *bench.Run) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.cancelLaterLocked(ctx, run)
}

// cancelLaterLocked cancels the parts queued after run, which ended (or
// never started) without succeeding. Called with q.mu held.
func (q *Queue) cancelLaterLocked(ctx context.Context, run *bench.Run) {
	i := slices.Index(run.Parts, run.ID)
	if i < 0 || run.Spec.Experiment == nil {
		return // a run of its own
	}
	reason := fmt.Sprintf("canceled before it started: the experiment's part %s (run %s) %s", run.Spec.Experiment.Part, run.ID, run.Status)
	for _, id := range run.Parts[i+1:] {
		later, err := q.store.FindRunByID(ctx, id)
		if err == nil && later.Status == bench.RunQueued && q.current != id {
			err = q.cancelQueuedLocked(ctx, later, reason)
		}
		if err != nil && bench.ErrorCode(err) != bench.ENOTFOUND {
			q.runner.log.Error("cancel a later part", "run", id, "err", err)
		}
	}
}

// cancelQueuedLocked takes a queued run out of line and records it
// canceled. Called with q.mu held.
func (q *Queue) cancelQueuedLocked(ctx context.Context, run *bench.Run, reason string) error {
	q.removePending(run.ID)
	now := time.Now().UTC()
	run.Status, run.Error, run.FinishedAt = bench.RunCanceled, reason, &now
	if err := q.store.UpdateRun(ctx, run); err != nil {
		return err
	}
	q.runner.publishRun(run)
	q.runner.hub.Finish(run.ID)
	return nil
}

// Subscribe returns the run's progress events; the channel is closed when
// the run ends or ctx is done. A finished run yields a closed channel.
func (q *Queue) Subscribe(ctx context.Context, id string) (<-chan bench.Event, error) {
	ch, unsubscribe := q.runner.hub.Subscribe(id)
	run, err := q.store.FindRunByID(ctx, id)
	if err != nil || run.Status.Finished() {
		unsubscribe()
		if err != nil {
			return nil, err
		}
		return ch, nil
	}
	go func() {
		<-ctx.Done()
		unsubscribe()
	}()
	return ch, nil
}

// QueueLength returns how many runs wait, not counting the running one.
func (q *Queue) QueueLength() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending)
}

// Current returns the ID of the running run, or "".
func (q *Queue) Current() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.current
}

func (q *Queue) loop(ctx context.Context) {
	defer close(q.done)
	for {
		id, runCtx, ok := q.next(ctx)
		if !ok {
			return
		}
		q.execute(runCtx, id)
		q.mu.Lock()
		q.current, q.cancelRun, q.currentBy = "", nil, time.Time{}
		q.mu.Unlock()
	}
}

// next waits for the first pending run and makes it current.
func (q *Queue) next(ctx context.Context) (string, context.Context, bool) {
	for {
		q.mu.Lock()
		if len(q.pending) > 0 {
			id := q.pending[0]
			q.pending = q.pending[1:]
			runCtx, cancel := context.WithCancelCause(ctx)
			q.current, q.cancelRun = id, func() { cancel(errCancelRequested) }
			q.mu.Unlock()
			return id, runCtx, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return "", nil, false
		case <-q.wake:
		}
	}
}

// errCancelRequested is why a run's context ends when Cancel asked for it,
// as opposed to the daemon stopping.
var errCancelRequested = errors.New("run cancel requested")

func (q *Queue) execute(ctx context.Context, id string) {
	if ctx.Err() != nil && !errors.Is(context.Cause(ctx), errCancelRequested) {
		return // the daemon is stopping: the run stays queued for its next start
	}
	// Read under no cancel: a cancel that lands now is the run's to record
	// (Execute does), not a reason to leave it queued.
	run, err := q.store.FindRunByID(context.WithoutCancel(ctx), id)
	if err != nil {
		if bench.ErrorCode(err) != bench.ENOTFOUND {
			q.runner.log.Error("read queued run", "run", id, "err", err)
		}
		return // deleted while waiting
	}
	if run.Status != bench.RunQueued {
		return // cancelled while waiting
	}
	q.mu.Lock()
	q.currentBy = time.Now().Add(plannedLength(run.Spec))
	q.mu.Unlock()
	if err := q.runner.Execute(ctx, run); err != nil {
		q.runner.log.Error("run could not be recorded", "run", id, "err", err)
	}
	if run.Status != bench.RunSucceeded && (ctx.Err() == nil || errors.Is(context.Cause(ctx), errCancelRequested)) {
		q.cancelLaterParts(context.WithoutCancel(ctx), run)
	}
}

func (q *Queue) removePending(id string) {
	for i, p := range q.pending {
		if p == id {
			q.pending = append(q.pending[:i], q.pending[i+1:]...)
			return
		}
	}
}

func (q *Queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Bounds of the Retry-After a full queue answers with: a place frees when
// the running run ends, so the wait is what the running run has left by
// its plan, at least minRetryAfter (a run also builds and starts its
// targets, which no plan says) and at most maxRetryAfter (a client that
// waits longer sees nothing it could not see by asking again).
const (
	minRetryAfter = 5 * time.Second
	maxRetryAfter = 60 * time.Second
)

// retryAfter is how long a caller refused by a full queue should wait: the
// time left of the running run's plan, within the bounds above. Called
// with q.mu held.
func (q *Queue) retryAfter(now time.Time) time.Duration {
	left := q.currentBy.Sub(now).Round(time.Second)
	return min(max(left, minRetryAfter), maxRetryAfter)
}

// plannedLength is how long a run's attacks take by its spec: each
// target's warm-up and profile, one target after the other.
func plannedLength(spec bench.RunSpec) time.Duration {
	per := time.Duration(spec.Profile.Duration())
	if !spec.Warmup.Disabled {
		per += time.Duration(spec.Warmup.Duration)
	}
	return per * time.Duration(len(spec.Targets))
}

package main

import (
	"context"
	"fmt"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/runner"
	"github.com/threadbench/threadbench/internal/spec"
	"github.com/threadbench/threadbench/internal/store"
)

// runLocal executes the spec in this process through the queue a daemon
// runs its runs with (newRunQueue), storing the runs in the local history:
// one, or one per part of an experiment of several parts, followed in
// turn. Everything is checked before anything is opened. Ctrl-C cancels
// the run (and the parts after it), keeping what was measured. responses,
// when not nil, logs every measured request of each target.
func runLocal(g *globalState, cfg config, rs bench.RunSpec, output string, quiet bool, responses bench.ResponseLog) error {
	_, err := runLocalRuns(g, cfg, rs, output, quiet, responses)
	return err
}

// runLocalRuns is runLocal returning the runs it followed to their end,
// as stored: for a command that goes on to judge them (check).
func runLocalRuns(g *globalState, cfg config, rs bench.RunSpec, output string, quiet bool, responses bench.ResponseLog) ([]*bench.Run, error) {
	// A local run's user may name the images to build on; a daemon's
	// callers may not.
	catalog := g.specCatalog(cfg)
	catalog.AllowImages = true
	if _, err := spec.PrepareRuns(rs, catalog); err != nil {
		return nil, err
	}
	db := store.NewDB(cfg.DB)
	if err := db.Open(); err != nil {
		return nil, bench.Errorf(bench.EUNAVAILABLE, "open run history %s: %v", cfg.DB, err)
	}
	defer db.Close()
	deps, err := openRunDeps(g, cfg, db, quiet)
	if err != nil {
		return nil, err
	}
	defer deps.Close()
	deps.config.Responses = responses
	queue := newRunQueue(deps, db, catalog, 0)
	first, err := queue.Submit(context.WithoutCancel(g.ctx), rs)
	if err != nil {
		return nil, err
	}
	l := &localRuns{g: g, cfg: cfg, db: db, queue: queue, parts: runParts(first)}
	return l.follow(output, quiet, responses)
}

// runParts are the IDs of the runs one submission queued, in order.
func runParts(first *bench.Run) []string {
	if len(first.Parts) > 0 {
		return first.Parts
	}
	return []string{first.ID}
}

// localRuns are the runs a CLI run submitted to its own queue.
type localRuns struct {
	g     *globalState
	cfg   config
	db    *store.DB
	queue *runner.Queue
	parts []string
}

// follow starts the queue and prints each run's progress and results in
// turn, until one does not succeed (the queue cancels the parts after it),
// and returns the runs that ended, that one among them.
func (l *localRuns) follow(output string, quiet bool, responses bench.ResponseLog) ([]*bench.Run, error) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	// Subscribed before the queue starts, so that no event goes unseen.
	events := make([]<-chan bench.Event, len(l.parts))
	for i, id := range l.parts {
		var err error
		if events[i], err = l.queue.Subscribe(ctx, id); err != nil {
			return nil, err
		}
	}
	l.queue.Start()
	defer func() {
		// No part this process submitted outlives it queued, for a daemon
		// on the same history to take up: whatever ended the loop (a part
		// that failed, Ctrl-C, an error), what is left is cancelled.
		l.cancelAll()
		l.queue.Close(context.Background())
	}()
	go l.cancelOnInterrupt(ctx)
	var ended []*bench.Run
	for i, id := range l.parts {
		run, err := l.await(ctx, id, events[i], quiet)
		if err != nil {
			return ended, err
		}
		ended = append(ended, run)
		listResultsFiles(l.g, run, responses)
		if err := finishRun(l.g, run, output, l.cfg.DB); err != nil {
			return ended, err
		}
	}
	return ended, nil
}

// await shows a run's progress until it has finished and returns it as
// stored. A reader the hub cut off for lagging subscribes again.
func (l *localRuns) await(ctx context.Context, id string, events <-chan bench.Event, quiet bool) (*bench.Run, error) {
	run, err := l.db.FindRunByID(ctx, id)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(l.g.stderr, "run %s: %d target(s), profile %s, history %s\n", run.ID, len(run.Spec.Targets), profileLabel(run.Spec.Profile), l.cfg.DB)
	for {
		showProgress(l.g.stderr, events, quiet)
		if run, err = l.db.FindRunByID(ctx, id); err != nil || run.Status.Finished() {
			return run, err
		}
		if events, err = l.queue.Subscribe(ctx, id); err != nil {
			return nil, err
		}
	}
}

// cancelOnInterrupt cancels the runs when the command's context ends
// (Ctrl-C) before they have.
func (l *localRuns) cancelOnInterrupt(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-l.g.ctx.Done():
		l.cancelAll()
	}
}

// cancelAll cancels the runs not yet finished: the running one is recorded
// canceled with what it measured, the queued ones before they start.
func (l *localRuns) cancelAll() {
	for _, id := range l.parts {
		if _, err := l.queue.Cancel(context.Background(), id); err != nil && bench.ErrorCode(err) != bench.ECONFLICT {
			fmt.Fprintf(l.g.stderr, "cancel run %s: %s\n", id, errorText(err))
		}
	}
}

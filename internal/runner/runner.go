// Package runner executes run specs: target by target, in the given order,
// it builds, starts under identical limits, checks, warms up, attacks and
// stops each one, records results and publishes progress. Queue puts runs in
// line for the daemon; only one run attacks at a time on a host.
package runner

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// stopTimeout bounds stopping a target once its attack is over or cancelled.
const stopTimeout = 30 * time.Second

// Config is what a Runner needs. Targets, Store and Attacker are required.
type Config struct {
	Targets  bench.TargetRuntime
	Store    bench.RunStore
	Series   bench.SeriesStore // optional: where recorded series go
	Attacker bench.Attacker
	Recorder bench.Recorder // optional metrics scraping
	// Databases starts the database server a spec asks for; a run that
	// asks for one fails without it.
	Databases bench.DatabaseRuntime
	// Responses, when set, logs every measured request of each target
	// (a results file each).
	Responses bench.ResponseLog

	// Artifacts, when set, keeps what recorded inside the targets (JFR
	// recordings, CPU profiles, folded stacks).
	Artifacts bench.ArtifactStore

	// NoCheck skips the quick contract check before each attack.
	NoCheck  bool
	Hub      *Hub   // optional; one is made when nil
	LockPath string // host-wide attack lock; DefaultLockPath() when empty
	CPUs     int    // host CPUs; runtime.NumCPU() when 0
	BuildLog io.Writer
	Logger   *slog.Logger
	// Observe, when set, sees every event of every run (the daemon's own
	// metrics). It must not block.
	Observe func(bench.Event)
	// OnLocked, when set, runs each time Execute has taken the host lock,
	// before the run is marked running (the queue's deferred recovery).
	OnLocked func(ctx context.Context)
}

// Runner executes runs.
type Runner struct {
	cfg      Config
	hub      *Hub
	log      *slog.Logger
	sessions sessions // what records inside the targets being run
}

// New returns a Runner.
func New(cfg Config) *Runner {
	if cfg.Hub == nil {
		cfg.Hub = NewHub()
	}
	if cfg.LockPath == "" {
		cfg.LockPath = DefaultLockPath()
	}
	if cfg.CPUs == 0 {
		cfg.CPUs = runtime.NumCPU()
	}
	if cfg.BuildLog == nil {
		cfg.BuildLog = io.Discard
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Runner{cfg: cfg, hub: cfg.Hub, log: cfg.Logger}
}

// Hub returns the hub progress is published on.
func (r *Runner) Hub() *Hub { return r.hub }

// Execute runs a stored, queued run to its end and stores the outcome. It
// returns an error only when the run could not be recorded; a target failing
// is part of the outcome, not an error. Cancelling ctx cancels the run.
func (r *Runner) Execute(ctx context.Context, run *bench.Run) error {
	defer r.hub.Finish(run.ID)
	lock := hostLock{path: r.cfg.LockPath}
	err := lock.acquire(ctx, func() {
		r.publish(bench.Event{Type: bench.EventRun, RunID: run.ID, RunStatus: run.Status,
			Message: "waiting for another run on this host to finish"})
	})
	switch {
	case err != nil && ctx.Err() != nil:
		return r.finish(run, bench.RunCanceled, "canceled while waiting for another run on this host")
	case err != nil:
		r.log.Error("host lock", "run", run.ID, "err", err)
		return r.finish(run, bench.RunFailed, "could not take the host's attack lock: "+err.Error())
	}
	defer lock.release()
	if r.cfg.OnLocked != nil {
		r.cfg.OnLocked(ctx)
	}

	now := time.Now().UTC()
	run.Status, run.StartedAt = bench.RunRunning, &now
	run.Environment = hostEnvironment(ctx, r.cfg.Targets, r.cfg.CPUs, run.Spec)
	run.Targets = pendingTargets(run.Spec)
	if err := r.save(run); err != nil {
		return r.unstored(run, err)
	}
	r.publishRun(run)

	svc, svcErr := r.startServices(ctx, run)
	// The services are gone before the run says it finished (a client
	// that sees it finished finds nothing of it running), and on every
	// other way out.
	servicesStopped := false
	stopServices := func() {
		if !servicesStopped {
			servicesStopped = true
			r.stopServices(run, svc)
		}
	}
	defer stopServices()
	for i := range run.Targets {
		if ctx.Err() != nil || svcErr != nil {
			run.Targets[i].Status = bench.TargetSkipped
			continue
		}
		r.executeTarget(ctx, run, &run.Targets[i], svc)
		if err := r.save(run); err != nil {
			return r.unstored(run, err)
		}
		if svcErr = checkDatabaseAlive(ctx, svc.database); svcErr != nil && ctx.Err() == nil {
			run.Database.Status, run.Database.Error = bench.TargetFailed, svcErr.Error()
		}
	}
	status, msg := outcome(ctx, run)
	if svcErr != nil && ctx.Err() == nil {
		status, msg = bench.RunFailed, svcErr.Error()
	}
	stopServices()
	return r.finish(run, status, msg)
}

// pendingTargets lays out a run: every case in each round, the rounds one
// after the other, so that drift over the run hits every case alike.
func pendingTargets(spec bench.RunSpec) []bench.TargetResult {
	var results []bench.TargetResult
	for round := range spec.Rounds() {
		for _, c := range spec.RunCases() {
			results = append(results, bench.TargetResult{Target: c.Target, Case: c.Name, Round: round,
				Engine: spec.EngineOf(c), Status: bench.TargetPending, Limits: spec.Limits})
		}
	}
	return results
}

// caseOf returns the case a result runs, and the spec it runs under.
func caseOf(spec bench.RunSpec, tr *bench.TargetResult) bench.RunSpec {
	for _, c := range spec.RunCases() {
		if c.Name == tr.Case && c.Target == tr.Target {
			return spec.ForCase(c)
		}
	}
	return spec
}

// outcome derives the run's final status from its targets.
func outcome(ctx context.Context, run *bench.Run) (bench.RunStatus, string) {
	if ctx.Err() != nil {
		return bench.RunCanceled, "canceled"
	}
	var failed []string
	first := ""
	for _, t := range run.Targets {
		if t.Status != bench.TargetSucceeded {
			failed = append(failed, t.Key())
			if first == "" && t.Error != "" {
				first = fmt.Sprintf("; %s: %s", t.Key(), t.Error)
			}
		}
	}
	// The first failure's own words, which usually say what to fix.
	if len(failed) > 0 {
		return bench.RunFailed, fmt.Sprintf("target(s) failed: %v%s", failed, first)
	}
	return bench.RunSucceeded, ""
}

func (r *Runner) finish(run *bench.Run, status bench.RunStatus, msg string) error {
	now := time.Now().UTC()
	run.Status, run.Error, run.FinishedAt = status, msg, &now
	if err := r.save(run); err != nil {
		return r.unstored(run, err)
	}
	r.publishRun(run)
	return nil
}

// unstored ends a run the history could not store (its disk full, say):
// the run fails with the store's reason, the target it was on fails with
// it and those after are skipped, and only its state is written again,
// the seconds stored before kept (the store keeps room on its disk for
// the write that finishes a run). It returns an error only when that
// write fails too; the run then stays as last stored, and the next start
// marks it interrupted.
func (r *Runner) unstored(run *bench.Run, err error) error {
	r.log.Error("store run", "run", run.ID, "err", err)
	now := time.Now().UTC()
	reason := "the run could not be stored: " + bench.ErrorMessage(err)
	run.Status, run.Error, run.FinishedAt = bench.RunFailed, reason, &now
	for i := range run.Targets {
		switch t := &run.Targets[i]; t.Status {
		case bench.TargetRunning:
			t.Status, t.Error, t.FinishedAt = bench.TargetFailed, reason, &now
		case bench.TargetPending:
			t.Status = bench.TargetSkipped
		}
	}
	state := *run
	state.Targets = slices.Clone(run.Targets)
	for i := range state.Targets {
		state.Targets[i].Seconds = nil
	}
	saveErr := r.save(&state)
	r.publishRun(run)
	return saveErr
}

// save stores the run with a context of its own: a cancelled run must still
// be recorded as cancelled.
func (r *Runner) save(run *bench.Run) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.cfg.Store.UpdateRun(ctx, run); err != nil {
		return fmt.Errorf("store run %s: %w", run.ID, err)
	}
	return nil
}

func (r *Runner) publish(ev bench.Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	if r.cfg.Observe != nil {
		r.cfg.Observe(ev)
	}
	r.hub.Publish(ev)
}

func (r *Runner) publishRun(run *bench.Run) {
	r.publish(bench.Event{Type: bench.EventRun, RunID: run.ID, RunStatus: run.Status, Message: run.Error})
}

func (r *Runner) phase(run *bench.Run, tr *bench.TargetResult, phase bench.Phase) {
	r.publish(bench.Event{Type: bench.EventTarget, RunID: run.ID, Target: tr.Key(),
		TargetStatus: tr.Status, Phase: phase})
}

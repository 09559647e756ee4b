package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// downstreamPhase names the downstream service in progress events.
const downstreamPhase = "downstream"

// startDownstream builds and starts the run's downstream service, if it
// has one, on the run's engine, where its targets are (Prepare sees to
// that), off the targets' CPUs, which stay the targets' own: here on the
// load generator's, since it mostly sleeps; on a remote host on those the
// targets leave. It records what it started in run.Downstream; the caller
// stops it.
func (r *Runner) startDownstream(ctx context.Context, run *bench.Run) (bench.Target, error) {
	d := run.Spec.Downstream
	if d == nil {
		return nil, nil
	}
	limits := run.Spec.DownstreamLimits()
	engine := run.Spec.EngineOf(bench.Case{})
	res := &bench.DownstreamResult{Target: d.Target, Status: bench.TargetRunning, Limits: limits}
	switch ee := run.Environment.Engine(engine); {
	case onLocalEngine(engine):
		res.CPUSet = run.Environment.LoadCPUSet
	case ee != nil:
		_, res.CPUSet = splitRemote(ee.CPUs, run.Spec.Limits.CPUs)
	}
	run.Downstream = res
	r.publish(bench.Event{Type: bench.EventTarget, RunID: run.ID, Target: downstreamPhase, TargetStatus: res.Status, Phase: bench.PhaseBuilding})
	img, err := r.cfg.Targets.Build(ctx, d.Target, run.Spec, r.cfg.BuildLog)
	if err != nil {
		return nil, r.downstreamFailed(run, fmt.Errorf("build: %w", err))
	}
	res.Image = img
	r.publish(bench.Event{Type: bench.EventTarget, RunID: run.ID, Target: downstreamPhase, TargetStatus: res.Status, Phase: bench.PhaseStarting})
	t, err := r.cfg.Targets.Start(ctx, d.Target, img, bench.StartRequest{
		RunID: run.ID, Engine: engine, Limits: limits, CPUSet: res.CPUSet, Java: run.Spec.Java, Workers: d.Workers,
	})
	if err != nil {
		return nil, r.downstreamFailed(run, fmt.Errorf("start: %w", err))
	}
	res.Status, res.URL, res.Settings, res.StartupMs = bench.TargetSucceeded, t.BaseURL(), t.Settings(), millis(t.Startup())
	if info, err := t.Info(ctx); err == nil {
		res.Image.Runtime = info["runtime"]
	}
	return t, nil
}

func (r *Runner) downstreamFailed(run *bench.Run, err error) error {
	run.Downstream.Status, run.Downstream.Error = bench.TargetFailed, err.Error()
	return fmt.Errorf("downstream service %s: %w", run.Downstream.Target, err)
}

// stopDownstream stops and removes the downstream service.
func (r *Runner) stopDownstream(run *bench.Run, t bench.Target) {
	if t == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if err := t.Stop(ctx); err != nil {
		r.log.Error("stop downstream", "run", run.ID, "err", err)
	}
}

// recordDownstream starts sampling the downstream during a target's
// attack, or returns nil without one.
func (r *Runner) recordDownstream(ctx context.Context, run *bench.Run, ds bench.Target) bench.Recording {
	if ds == nil || r.cfg.Recorder == nil {
		return nil
	}
	return r.cfg.Recorder.Record(ctx, ds, run.Spec.DownstreamLimits())
}

// keepDownstreamRecording files the downstream's resources with the target
// whose attack they cover, and its series under "<key>/downstream".
func (r *Runner) keepDownstreamRecording(run *bench.Run, tr *bench.TargetResult, rec bench.Recording, t0 time.Time) {
	if rec == nil {
		return
	}
	if !t0.IsZero() {
		rec.SetT0(t0)
	}
	rr := rec.Stop(context.Background(), tr.Warmup, tr.Stages)
	tr.DownstreamResources = rr.Resources
	if r.cfg.Series == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.cfg.Series.SaveSeries(ctx, run.ID, tr.Key()+"/downstream", rr.Series); err != nil {
		r.log.Error("store downstream series", "run", run.ID, "target", tr.Key(), "err", err)
	}
}

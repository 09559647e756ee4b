package runner

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/threadbench/threadbench/internal/bench"
)

// logTail is how many container log lines a target failure quotes.
const logTail = 30

// executeTarget takes one target through its whole life and records how it
// ended. It never fails the run: the next target goes on regardless.
func (r *Runner) executeTarget(ctx context.Context, run *bench.Run, tr *bench.TargetResult, svc services) {
	started := time.Now().UTC()
	tr.StartedAt, tr.Status = &started, bench.TargetRunning
	// Recorded now, so that a process killed mid-attack leaves the target
	// marked running, and the next start marks it failed, not skipped.
	if err := r.save(run); err != nil {
		r.log.Error("record target start", "run", run.ID, "target", tr.Key(), "err", err)
	}
	err := r.runTarget(ctx, run, tr, svc)
	finished := time.Now().UTC()
	tr.FinishedAt = &finished
	switch {
	case err == nil:
		tr.Status = bench.TargetSucceeded
	case ctx.Err() != nil:
		tr.Status, tr.Error = bench.TargetCanceled, "canceled"
	default:
		tr.Status, tr.Error = bench.TargetFailed, err.Error()
		r.log.Warn("target failed", "run", run.ID, "target", tr.Key(), "err", err)
	}
	r.phase(run, tr, bench.PhaseDone)
}

func (r *Runner) runTarget(ctx context.Context, run *bench.Run, tr *bench.TargetResult, svc services) error {
	spec := caseOf(run.Spec, tr)
	r.phase(run, tr, bench.PhaseBuilding)
	img, err := r.cfg.Targets.Build(ctx, tr.Target, spec, r.cfg.BuildLog)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	tr.Image = img

	r.phase(run, tr, bench.PhaseStarting)
	req := bench.StartRequest{RunID: run.ID, Engine: spec.Engine, Limits: spec.Limits, Java: spec.Java,
		CPUSet: targetCPUSet(run.Environment, spec.Engine), Requests: spec.Workload.AllRequests(), Record: !spec.NoProfile, NoThreadSamples: spec.NoThreadSamples}
	if svc.downstream != nil {
		req.Downstream = svc.downstream.BaseURL()
	}
	req.Database = databaseEnv(spec, svc.database)
	t, err := r.cfg.Targets.Start(ctx, tr.Target, img, req)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	r.openInside(spec, tr, t)
	defer func() { r.collectAndStop(ctx, run, tr, t) }() // t as it is then: a search may start it again
	tr.CPUSet, tr.StartupMs, tr.Settings = req.CPUSet, millis(t.Startup()), t.Settings()

	if !r.cfg.NoCheck {
		r.phase(run, tr, bench.PhaseChecking)
		if err := t.Check(ctx); err != nil {
			return fmt.Errorf("contract check: %w", err)
		}
	}
	if err := recordInfo(ctx, t, tr); err != nil {
		return fmt.Errorf("contract check: %w", err)
	}
	if ee := run.Environment.Engine(spec.Engine); ee != nil && ee.CPUModel == "" {
		ee.CPUModel = tr.Settings["info.cpuModel"]
	}
	if spec.Capacity != nil {
		restart := func(ctx context.Context) error {
			var err error
			t, err = r.restart(ctx, run, spec, tr, t, img, req)
			return err
		}
		return r.searchCapacity(ctx, run, spec, tr, func() bench.Target { return t }, restart)
	}
	return r.attack(ctx, run, spec, tr, t, svc)
}

// attack runs the warm-up and the profile against a started target, with the
// load generator pinned off the target's CPU when they share this host, and
// the metrics recorder on.
func (r *Runner) attack(ctx context.Context, run *bench.Run, spec bench.RunSpec, tr *bench.TargetResult, t bench.Target, svc services) error {
	var rec bench.Recording
	if r.cfg.Recorder != nil {
		rec = r.cfg.Recorder.Record(ctx, t, spec.Limits)
	}
	dsRec := r.recordDownstream(ctx, run, svc.downstream)
	dbRec := r.recordDatabase(ctx, svc.database)
	if run.Environment.CPUSplitApplied && onLocalEngine(spec.Engine) {
		restore, err := pinProcess(run.Environment.LoadCPUSet)
		if err != nil {
			return fmt.Errorf("pin load generator to CPUs %s: %w", run.Environment.LoadCPUSet, err)
		}
		defer restore()
	}
	obs := r.observer(run, tr, rec)
	closeLog, err := r.logResponses(run, tr, &obs)
	if err != nil {
		return err
	}
	res, err := r.warmAndAttack(ctx, spec, tr, t.BaseURL(), obs, rec)
	closeLog()
	if rec != nil {
		rr := rec.Stop(context.Background(), tr.Warmup, tr.Stages)
		if tr.WarmupSteady != nil {
			noteJIT(tr.WarmupSteady, rr.Series)
		}
		r.keepRecording(run, tr, rr)
	}
	var t0 time.Time
	if res != nil {
		t0 = res.T0
	}
	r.keepDownstreamRecording(run, tr, dsRec, t0)
	r.keepDatabaseRecording(run, tr, dbRec, t0)
	noteGenerators(&run.Environment, tr.Generators)
	if err != nil {
		return fmt.Errorf("attack: %w", err)
	}
	if err := checkDatabaseAlive(ctx, svc.database); err != nil {
		return err
	}
	return r.checkAlive(ctx, t, tr.Engine)
}

// engineWords names an engine in a sentence: "engine lab", "the local
// engine".
func engineWords(name string) string {
	if name == "" || name == bench.EngineLocal {
		return "the local engine"
	}
	return "engine " + name
}

// noteGenerators records where the load generators of a run's first
// attack sent by several ran.
func noteGenerators(env *bench.Environment, gens []bench.GeneratorResult) {
	if len(env.Generators) > 0 {
		return
	}
	for _, g := range gens {
		env.Generators = append(env.Generators, g.GeneratorEnvironment)
	}
}

// warmAndAttack runs the warm-up and the profile as one attack, and
// records both in tr. A warm-up until steady ends when its watcher says the
// target settled (rec gives it a JVM's compilation time as it runs), and
// the profile then starts at once with the same clients.
func (r *Runner) warmAndAttack(ctx context.Context, spec bench.RunSpec, tr *bench.TargetResult, baseURL string, obs bench.Observer, rec bench.Recording) (*bench.AttackResult, error) {
	plan := bench.Plan{Workload: spec.Workload, Profile: spec.Profile, Warmup: spec.Warmup}
	var warm *warmup
	if spec.Warmup.UntilSteady && !spec.Warmup.Disabled {
		warm = newWarmup(spec, rec)
		plan.Settled = warm.settled
	}
	res, err := r.cfg.Attacker.Run(ctx, baseURL, plan, obs)
	if res == nil {
		return nil, err
	}
	tr.Warmup, tr.Stages, tr.Total, tr.Seconds, tr.Requests = res.Warmup, res.Stages, &res.Total, res.Seconds, res.Requests
	tr.Generators = res.Generators
	if warm != nil {
		tr.WarmupSteady = warm.outcome(res.Warmup)
	}
	return res, err
}

func (r *Runner) observer(run *bench.Run, tr *bench.TargetResult, rec bench.Recording) bench.Observer {
	return r.watchInside(tr, bench.Observer{
		Start: func(t0 time.Time) {
			if rec != nil {
				rec.SetT0(t0)
			}
		},
		Stage: func(s bench.StageResult) {
			phase := bench.PhaseAttack
			if s.Warmup {
				phase = bench.PhaseWarmup
			}
			r.publish(bench.Event{Type: bench.EventStage, RunID: run.ID, Target: tr.Key(),
				TargetStatus: tr.Status, Phase: phase, Stage: &s})
		},
		Second: func(b bench.Bucket) {
			r.publish(bench.Event{Type: bench.EventSecond, RunID: run.ID, Target: tr.Key(), Second: &b})
		},
	})
}

// keepRecording files what the metrics recorder kept: resource summaries in
// the run document, series and raw expositions in the series store.
func (r *Runner) keepRecording(run *bench.Run, tr *bench.TargetResult, rr bench.RecordingResult) {
	if rr.ScrapeFailures > 0 || rr.StatsFailures > 0 {
		r.log.Warn("metrics sampling had failures", "run", run.ID, "target", tr.Key(),
			"scrapeFailures", rr.ScrapeFailures, "statsFailures", rr.StatsFailures, "last", rr.LastError)
	}
	tr.Resources = rr.Resources
	tr.Series = seriesNames(rr.Series)
	if r.cfg.Series == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.cfg.Series.SaveSeries(ctx, run.ID, tr.Key(), rr.Series); err != nil {
		r.log.Error("store series", "run", run.ID, "target", tr.Key(), "err", err)
	}
	for _, e := range rr.Expositions {
		if err := r.cfg.Series.SaveExposition(ctx, run.ID, tr.Key(), e); err != nil {
			r.log.Error("store exposition", "run", run.ID, "target", tr.Key(), "err", err)
		}
	}
}

func seriesNames(series []bench.Series) []string {
	seen := map[string]bool{}
	var names []string
	for _, s := range series {
		if !seen[s.Name] {
			seen[s.Name] = true
			names = append(names, s.Name)
		}
	}
	sort.Strings(names)
	return names
}

// restart starts a target again after it died under load, for a capacity
// search to go on below the rate that killed it: the dead container is
// stopped (its recording inside is lost with it), a new one started from
// the same image and request, checked, and recorded inside as the first
// was. It returns the new target, or the old one with the error.
func (r *Runner) restart(ctx context.Context, run *bench.Run, spec bench.RunSpec, tr *bench.TargetResult, old bench.Target, img bench.ImageInfo, req bench.StartRequest) (bench.Target, error) {
	if s := r.sessions.take(tr); s != nil {
		s.Close()
	}
	r.halt(run, tr, old)
	r.phase(run, tr, bench.PhaseStarting)
	t, err := r.cfg.Targets.Start(ctx, tr.Target, img, req)
	if err != nil {
		return old, fmt.Errorf("start again after it died: %w", err)
	}
	r.openInside(spec, tr, t)
	if !r.cfg.NoCheck {
		r.phase(run, tr, bench.PhaseChecking)
		if err := t.Check(ctx); err != nil {
			return t, fmt.Errorf("contract check after starting again: %w", err)
		}
	}
	return t, nil
}

// deathOf says how a target died, in a line: checkAlive's reason and the
// last line of its log that names an error (or its last line), for a
// trial's verdict; the whole reason with its log tail is kept in the log.
func deathOf(err error) string {
	reason, logs, _ := strings.Cut(err.Error(), "; last log lines:\n")
	lines := strings.Split(strings.TrimSpace(logs), "\n")
	last := ""
	for i := len(lines) - 1; i >= 0 && last == ""; i-- {
		if l := strings.TrimSpace(lines[i]); strings.Contains(l, "Error") || strings.Contains(l, "Exception") || strings.Contains(l, "panic") {
			last = l
		}
	}
	if last == "" && len(lines) > 0 {
		last = strings.TrimSpace(lines[len(lines)-1])
	}
	if last != "" {
		reason += ": " + last
	}
	return reason
}

// checkAlive fails a target whose container died under load (crash, OOM,
// its engine stopping or restarting), quoting its log and naming the
// engine: its numbers would otherwise look like a slow server.
func (r *Runner) checkAlive(ctx context.Context, t bench.Target, engine string) error {
	st, err := t.State(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil // cancelled: the run says so already
		}
		return fmt.Errorf("container %s vanished during the attack: %s did not say what became of it (stopped, restarted, or the container removed from outside): %w",
			t.ContainerID(), engineWords(engine), err)
	}
	if st.Running {
		return nil
	}
	reason := fmt.Sprintf("container exited with code %d during the attack", st.ExitCode)
	switch {
	case st.OOMKilled:
		reason = "container was killed for running out of memory (OOM) during the attack"
	case st.ExitCode == 0:
		reason += fmt.Sprintf(" (it stopped cleanly, as on a stop signal: nothing of threadbench's stops a target under attack; %s stopping or restarting, or a docker stop, did)", engineWords(engine))
	case st.ExitCode == 128+int(syscall.SIGTERM) || st.ExitCode == 128+int(syscall.SIGKILL):
		reason += fmt.Sprintf(" (%s: stopped from outside it, as %s does when it stops or restarts, or a docker stop)",
			unix.SignalName(syscall.Signal(st.ExitCode-128)), engineWords(engine))
	}
	logs, _ := t.Logs(ctx, logTail)
	if logs = strings.TrimSpace(logs); logs != "" {
		reason += "; last log lines:\n" + logs
	}
	return fmt.Errorf("%s", reason)
}

func (r *Runner) stop(run *bench.Run, tr *bench.TargetResult, t bench.Target) {
	r.phase(run, tr, bench.PhaseStopping)
	r.halt(run, tr, t)
}

// halt stops the target once its stopping phase has been told.
func (r *Runner) halt(run *bench.Run, tr *bench.TargetResult, t bench.Target) {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if err := t.Stop(ctx); err != nil {
		r.log.Error("stop target", "run", run.ID, "target", tr.Key(), "err", err)
	}
}

// recordInfo adds what the target says about itself at GET /info (runtime,
// thread model, the knobs in effect, processors, memory limit) to its
// settings as "info.<key>", so that results record what ran, not only what
// was asked. /info is part of the contract: a target without it fails.
func recordInfo(ctx context.Context, t bench.Target, tr *bench.TargetResult) error {
	info, err := t.Info(ctx)
	if err != nil {
		return err
	}
	if tr.Settings == nil {
		tr.Settings = map[string]string{}
	}
	for k, v := range info {
		tr.Settings["info."+k] = v
	}
	if rt := info["runtime"]; rt != "" {
		tr.Image.Runtime = rt
	}
	return nil
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

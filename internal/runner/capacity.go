package runner

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
	"github.com/threadbench/threadbench/internal/steady"
)

// searchCapacity runs a capacity search against a started target instead
// of its profile: the warm-up once, then each trial the search asks for as
// a one-stage open profile, kept as the target's next stage and saved at
// once, so that the search is an ordinary run in the history. target is
// the target as it is now: one that dies in a trial is started again
// (restart) before the next, and warmed up again, the trial a failure
// that says how it died.
func (r *Runner) searchCapacity(ctx context.Context, run *bench.Run, spec bench.RunSpec, tr *bench.TargetResult, target func() bench.Target, restart func(context.Context) error) error {
	cfg, err := capacity.FromSpec(*spec.Capacity, len(run.Targets))
	if err != nil {
		return err
	}
	cfg = shareBudget(cfg, run, tr)
	if run.Environment.CPUSplitApplied && onLocalEngine(spec.Engine) {
		restore, err := pinProcess(run.Environment.LoadCPUSet)
		if err != nil {
			return fmt.Errorf("pin load generator to CPUs %s: %w", run.Environment.LoadCPUSet, err)
		}
		defer restore()
	}
	startFrom := ""
	if spec.Capacity.StartRate == 0 {
		cfg.StartRate, startFrom = startRate(cfg, spec.Workload, *tr)
	}
	if bound, what, ok := poolBound(spec.Workload, *tr); ok {
		cfg.Ceiling, cfg.CeilingWhat = bound, what
	}
	trials := &trialRunner{r: r, run: run, spec: spec, tr: tr, target: target, restart: restart, warmup: spec.Warmup,
		timeout: cfg.TrialTimeout(spec.Workload.Timeout.D())}
	trials.record(ctx)
	res, err := capacity.Search(ctx, cfg, trials.attack)
	trials.keepRecording()
	if err != nil {
		return fmt.Errorf("capacity search: %w", err)
	}
	tr.Capacity = res.Summary(cfg.Objective)
	tr.Capacity.Start, tr.Capacity.StartFrom = cfg.StartRate, startFrom
	if c, ok := tr.Capacity.LastPassed(); ok {
		total := tr.Stages[c.Stage].Stats
		tr.Total = &total
	}
	if trials.died != "" { // in the last trial, which says so
		return nil
	}
	return r.checkAlive(ctx, target(), tr.Engine)
}

// shareBudget gives the search of tr its share of the run's budget as it
// starts (capacity.Config.Shared): what the searches of the targets before
// it left, evenly among the targets from it on. They are charged what
// their searches spent, their builds, starts and warm-ups not.
func shareBudget(cfg capacity.Config, run *bench.Run, tr *bench.TargetResult) capacity.Config {
	var spent time.Duration
	for i := range run.Targets {
		before := &run.Targets[i]
		if before == tr {
			return cfg.Shared(capacity.RunBudget(*run.Spec.Capacity, len(run.Targets)), spent, len(run.Targets)-i)
		}
		if before.Capacity != nil {
			spent += before.Capacity.Spent.D()
		}
	}
	return cfg
}

// startRate is where a search given no start rate begins: at the target's
// thread-pool bound when it has a pool and the workload's service time is
// known (threads ÷ service time: the search then brackets in a few trials
// around where the pool stops it), else at the default; and says which.
func startRate(cfg capacity.Config, w bench.Workload, tr bench.TargetResult) (float64, string) {
	bound, what, ok := poolBound(w, tr)
	if !ok {
		return capacity.DefaultStartRate, ""
	}
	return math.Min(math.Max(math.Round(bound), capacity.DefaultMinRate), cfg.MaxRate), what
}

// poolBound is the most a target's thread pool serves of the workload
// (threads ÷ the service time its requests take at least), and its name;
// false for a target without a pool or a workload of unknown service time.
func poolBound(w bench.Workload, tr bench.TargetResult) (float64, string, bool) {
	threads, pooled := tr.PoolThreads()
	bound, service, known := bench.PoolBound(threads, w)
	if !pooled || !known {
		return 0, "", false
	}
	return bound, fmt.Sprintf("its %d-thread pool's bound (%d threads ÷ %.3f s service time)", threads, threads, service), true
}

// trialRunner runs a search's trials through the runner's Attacker, on
// the search's clock: from its first measured request (t0), each trial at
// the offset its own first request had, so that its seconds, its stage
// and the metrics recorded over the whole search line up as in any run.
type trialRunner struct {
	r       *Runner
	run     *bench.Run
	spec    bench.RunSpec
	tr      *bench.TargetResult
	target  func() bench.Target         // the target as it is now
	restart func(context.Context) error // starts it again after it died
	warmup  bench.Warmup                // the next trial's: the first's, or after a restart; the others have none
	timeout time.Duration               // the trials' request timeout (capacity.Config.TrialTimeout)
	rec     bench.Recording             // the metrics recorder's, over the whole search; nil without one
	from    int                         // the first stage rec records (a restart starts another)
	kept    []bench.RecordingResult     // what the recorders of targets that died kept
	t0      time.Time                   // the search's clock zero; zero before its first trial
	began   time.Time                   // the running trial's first measured request, once known
	died    string                      // how the target died in the last trial, until it is started again
}

// record starts the metrics recorder over the search, warm-up included,
// or over a target started again, on the search's clock.
func (tr *trialRunner) record(ctx context.Context) {
	if tr.r.cfg.Recorder == nil {
		return
	}
	tr.rec, tr.from = tr.r.cfg.Recorder.Record(ctx, tr.target(), tr.spec.Limits), len(tr.tr.Stages)
	if !tr.t0.IsZero() {
		tr.rec.SetT0(tr.t0)
	}
}

// stopRecording stops the recorder, summarising the stages it recorded
// (the warm-up with the first), and keeps what it kept.
func (tr *trialRunner) stopRecording() {
	if tr.rec == nil {
		return
	}
	var warmup *bench.StageResult
	if tr.from == 0 {
		warmup = tr.tr.Warmup
	}
	tr.kept = append(tr.kept, tr.rec.Stop(context.Background(), warmup, tr.tr.Stages[tr.from:]))
	tr.rec = nil
}

// keepRecording stops the recorder and keeps what it recorded, with each
// trial's resources, as an attack's recording is kept: every target's the
// search started, one after another on its clock.
func (tr *trialRunner) keepRecording() {
	tr.stopRecording()
	if len(tr.kept) > 0 {
		tr.r.keepRecording(tr.run, tr.tr, joinRecordings(tr.kept))
	}
}

// joinRecordings joins the recordings of targets started one after the
// other on one clock: each series' points in turn, each its own stages'
// resources.
func joinRecordings(rrs []bench.RecordingResult) bench.RecordingResult {
	if len(rrs) == 1 {
		return rrs[0]
	}
	var out bench.RecordingResult
	index := map[string]int{}
	for _, rr := range rrs {
		for _, s := range rr.Series {
			key := s.Name + "\x00" + fmt.Sprint(s.Labels)
			if i, ok := index[key]; ok {
				out.Series[i].Points = append(out.Series[i].Points, s.Points...)
				continue
			}
			index[key] = len(out.Series)
			s.Points = append([]bench.Point(nil), s.Points...)
			out.Series = append(out.Series, s)
		}
		out.Expositions = append(out.Expositions, rr.Expositions...)
		out.Resources = append(out.Resources, rr.Resources...)
		out.ScrapeFailures += rr.ScrapeFailures
		out.StatsFailures += rr.StatsFailures
		if rr.LastError != "" {
			out.LastError = rr.LastError
		}
	}
	return out
}

// startAgain starts the target again after it died in the last trial,
// with its own recorder and a warm-up before the next trial: the time it
// takes is the next trial's warm-up, which the budget does not pay.
func (tr *trialRunner) startAgain(ctx context.Context) (time.Duration, error) {
	began := time.Now()
	tr.stopRecording()
	if err := tr.restart(ctx); err != nil {
		return 0, fmt.Errorf("the target died (%s), and %w", tr.died, err)
	}
	tr.died, tr.warmup = "", tr.spec.Warmup
	tr.record(ctx)
	return time.Since(began), nil
}

// startAt sets the running trial's first measured request; the first
// trial's is the search's t0.
func (tr *trialRunner) startAt(t0 time.Time) {
	tr.began = t0
	if tr.t0.IsZero() {
		tr.t0 = t0
		if tr.rec != nil {
			tr.rec.SetT0(t0)
		}
	}
}

// offset is where the running trial starts on the search's clock.
func (tr *trialRunner) offset() time.Duration { return tr.began.Sub(tr.t0) }

func (tr *trialRunner) attack(ctx context.Context, trial capacity.Trial) (capacity.Outcome, error) {
	var restarted time.Duration
	if tr.died != "" {
		var err error
		if restarted, err = tr.startAgain(ctx); err != nil {
			return capacity.Outcome{}, err
		}
	}
	w := tr.spec.Workload
	w.Timeout = bench.Duration(tr.timeout)
	plan := bench.Plan{Workload: w, Warmup: tr.warmup, Profile: bench.Profile{
		Model: bench.ModelOpen, Connections: tr.spec.Profile.Connections,
		Stages: []bench.Stage{{Name: string(trial.Phase), Duration: bench.Duration(trial.Duration), Rate: trial.Rate}},
	}}
	tr.warmup = bench.Warmup{Disabled: true}
	warm := tr.warmUntilSteady(&plan, trial)
	tr.began = time.Time{}
	pw := newPauseWatch(tr.rec)
	res, err := tr.r.cfg.Attacker.Run(ctx, tr.target().BaseURL(), plan, tr.observer(trial, pw))
	if err != nil {
		return capacity.Outcome{}, err
	}
	if len(res.Stages) != 1 {
		return capacity.Outcome{}, fmt.Errorf("the attack measured %d stages, want 1", len(res.Stages))
	}
	warmup := restarted
	if res.Warmup != nil {
		if tr.tr.Warmup == nil { // the first: a restarted target's is its next trial's time
			tr.tr.Warmup = res.Warmup
		}
		warmup += res.Warmup.Duration.D()
	}
	if tr.began.IsZero() { // an engine that did not say when it started
		tr.startAt(orNow(res.T0))
	}
	st := res.Stages[0]
	st.Index, st.Name, st.StartOffset = len(tr.tr.Stages), trialName(trial), bench.Duration(tr.offset())
	if err := tr.r.checkAlive(ctx, tr.target(), tr.tr.Engine); err != nil && ctx.Err() == nil {
		tr.r.log.Warn("target died in a capacity trial; starting it again", "run", tr.run.ID, "target", tr.tr.Key(), "trial", st.Name, "err", err)
		st.Died = deathOf(err)
		tr.died = st.Died
	}
	tr.tr.Stages = append(tr.tr.Stages, st)
	tr.tr.Seconds = append(tr.tr.Seconds, onSearchClock(res.Seconds, st.Index, tr.offset())...)
	if err := tr.r.save(tr.run); err != nil {
		return capacity.Outcome{}, err
	}
	pw.poll()
	out := capacity.Outcome{Stats: st.Stats, GeneratorBound: generatorBound(st.Generator), Warmup: warmup, Died: st.Died,
		Pauses: pw.seen, LastSecond: lastFullSecond(res.Seconds), Compiling: pw.compiling(trial.Duration, tr.spec.Limits.CPUs),
		Warmed: warmedWords(trial, warm, res.Warmup)}
	if g := st.Generator; g != nil {
		out.SendLag = g.OwnLagP99()
		out.Disturbed = g.Stolen()
	}
	return out, nil
}

// warmUntilSteady gives plan the warm-up a trial asked for
// (capacity.Trial.WarmAt): until the run's own test says the target is
// steady and its JVM's compiler quiet, at the rate asked, at most the
// run's warmup.maxDuration (bench.DefaultWarmupMaxDuration unless given).
// It returns the watch that ends it; nil when the trial asked for none.
func (tr *trialRunner) warmUntilSteady(plan *bench.Plan, trial capacity.Trial) *warmup {
	if trial.WarmAt <= 0 || trial.WarmAt >= trial.Rate {
		return nil
	}
	spec := tr.spec
	spec.Warmup = bench.Warmup{UntilSteady: true, MaxDuration: cmp.Or(spec.Warmup.MaxDuration, bench.DefaultWarmupMaxDuration),
		Window: bench.DefaultWarmupWindow, Fraction: trial.WarmAt / trial.Rate}
	plan.Warmup = spec.Warmup
	w := newWarmup(spec, tr.rec)
	plan.Settled = w.settled
	return w
}

// warmedWords says how a trial's warm-up until steady ended
// (capacity.Outcome.Warmed); empty when it had none.
func warmedWords(trial capacity.Trial, w *warmup, stage *bench.StageResult) string {
	if w == nil || stage == nil {
		return ""
	}
	ws := w.outcome(stage)
	if ws.Steady {
		return fmt.Sprintf("warmed up at %.0f req/s until steady, its JIT quiet: %.0f s", trial.WarmAt, ws.Seconds)
	}
	why := "not steady"
	if ws.JITBusy {
		why = "its JIT still busy"
	}
	return fmt.Sprintf("warmed up at %.0f req/s for its %s maximum, %s", trial.WarmAt, ws.MaxDuration, why)
}

// observer publishes a trial's progress as the target's next stage, on
// the search's clock rather than the trial's own.
func (tr *trialRunner) observer(trial capacity.Trial, pw *pauseWatch) bench.Observer {
	obs := tr.r.observer(tr.run, tr.tr, nil)
	index, name := len(tr.tr.Stages), trialName(trial)
	start, stage, second := obs.Start, obs.Stage, obs.Second
	obs.Start = func(t0 time.Time) {
		tr.startAt(t0)
		pw.start(t0)
		start(t0)
	}
	obs.Stage = func(s bench.StageResult) {
		if !s.Warmup {
			s.Index, s.Name = index, name
		}
		stage(s)
	}
	obs.Second = func(b bench.Bucket) {
		if tr.began.IsZero() { // an engine that did not say when it started
			tr.startAt(time.Now())
		}
		if b.Second >= 0 { // a measured second, not the warm-up's
			if pw.began.IsZero() {
				pw.start(tr.began)
			}
			pw.poll()
		}
		second(onSearchClock([]bench.Bucket{b}, index, tr.offset())[0])
	}
	return obs
}

// onSearchClock moves a trial's seconds to the search's clock: its stage,
// and the second it fell in from the search's t0 (the trial's own offset,
// to the nearest whole second, plus its second: no second of a trial of
// whole seconds falls on the next trial's, which starts its length and a
// pause later).
func onSearchClock(seconds []bench.Bucket, stage int, offset time.Duration) []bench.Bucket {
	out := make([]bench.Bucket, len(seconds))
	for i, b := range seconds {
		b.Stage, b.Second = stage, b.Second+int(offset.Round(time.Second)/time.Second)
		out[i] = b
	}
	return out
}

// lastFullSecond is what the last full second of a trial's seconds
// answered, per second (steady.FullSeconds: the engine's last may be cut
// short by the stage's end); 0 when none was, or it was the warm-up's.
func lastFullSecond(seconds []bench.Bucket) float64 {
	full := steady.FullSeconds(seconds)
	if n := len(full); n > 0 && full[n-1].Second >= 0 {
		return full[n-1].Stats.Throughput
	}
	return 0
}

// orNow is t, or now when t is zero.
func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

func trialName(t capacity.Trial) string { return fmt.Sprintf("%s %.0f/s", t.Phase, t.Rate) }

// generatorBound says why the load generator, not the target, limited a
// trial: it used its CPUs up, or sent late by its own doing. Requests late
// because every connection was busy, or dropped, are the target's doing
// (it answers too slowly), not the generator's: where the engine tells its
// own lag from those waits, only its own counts; where it cannot, a lag
// counts only with no request having waited for a connection.
func generatorBound(g *bench.Generator) string {
	if g == nil {
		return ""
	}
	var why []string
	if g.CPUShare >= bench.GeneratorCPUBound {
		why = append(why, fmt.Sprintf("generator CPU %.0f%% of its %d CPU(s)", g.CPUShare*100, g.CPUs))
	}
	switch lag := g.OwnLagP99(); {
	case lag <= bench.SendLagBoundMs:
	case g.SchedulingLagP99 > 0:
		why = append(why, fmt.Sprintf("scheduling lag p99 %.1f ms", lag))
	case g.Late == 0:
		why = append(why, fmt.Sprintf("send lag p99 %.1f ms with connections free", lag))
	}
	return strings.Join(why, "; ")
}

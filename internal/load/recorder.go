package load

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
)

// recorder files an attack's outcomes as workers report them: latencies by
// the window the request was scheduled in (warm-up, stage, second),
// completions by the window the response arrived in. Nothing it keeps
// grows with the number of requests, only with the number of seconds.
// Workers call record under its lock; a ticker closes seconds, samples the
// generator and tells the observer. It reads the timetable's schedule under
// its lock, where a cut (settle.go) cannot change it.
type recorder struct {
	mu    sync.Mutex
	sched *timetable
	plan  bench.Plan
	obs   bench.Observer
	reqs  *requestSet
	cfg   recorderConfig

	warm   *window   // nil without a warm-up
	stages []*window // the profile's stages
	total  *window   // the measured stages together

	seconds  []*second      // one per bucket of the profile
	sent     []atomic.Int64 // closed model: requests sent per bucket
	expected []int64        // open model: requests the schedule puts in each bucket
	next     int            // the next bucket to report
	done     *spool         // the buckets reported
	warmSecs *warmSeconds   // a warm-up until steady's, judged by plan.Settled; nil otherwise

	began    time.Time // the attack clock's zero
	t0       time.Time
	samples  []sample // at the attack's start, t0 and each bucket's end
	events   []event
	fired    int // events fired
	canceled bool
	stopped  time.Duration // when counting stopped (the end, or a cancel)
	seq      uint64        // measured responses told to the observer
}

// recorderConfig is what the engine tells the recorder about itself.
type recorderConfig struct {
	maxErrors   int
	bucket      time.Duration
	open        bool // latency is from the schedule; service time kept apart
	cpus        int
	connections int
	wire        *wire
	apiRequests func() int64
	engine      string // bench.Generator.Engine: empty for ours
}

// window is what one stretch of the attack (warm-up, stage, whole) kept.
type window struct {
	agg   *Aggregate
	kinds []*Aggregate // per request, when the workload has several
	// kindCompleted are the successful responses per request that arrived
	// in the window, beside kinds.
	kindCompleted []int64
	lag           *hdrhistogram.Histogram // scheduled to sent
	sched, wait   *hdrhistogram.Histogram // of it, the generator's own lag and the waits for a connection
	completed     int64
	iterations    int64
	late          int64
	conns         int // open model: the highest connection limit its requests were sent under
}

// second is a bucket of the profile still being filled.
type second struct {
	window
	recorded   int64 // requests filed, dropped ones included
	completed  int64
	spread     float64 // bench.Stats.CompletedSpread
	iterations int64
}

// sample is the generator's counters at one instant of the attack clock.
type sample struct {
	at      time.Duration
	cpu     time.Duration
	in, out int64
	api     int64
	// the machine's CPU time the hypervisor took (steal) and its whole
	// CPU time, in clock ticks (/proc/stat)
	steal, ticks int64
}

// event is an Observer call due at a point of the attack clock.
type event struct {
	at   time.Duration
	fire func()
}

func newRecorder(plan bench.Plan, sched *timetable, reqs *requestSet, obs bench.Observer, cfg recorderConfig, began time.Time) *recorder {
	sc := sched.load()
	r := &recorder{sched: sched, plan: plan, obs: obs, reqs: reqs, cfg: cfg, began: began, t0: began.Add(sc.warm)}
	if sc.warm > 0 {
		r.warm = r.newWindow()
	}
	for range plan.Profile.Stages {
		r.stages = append(r.stages, r.newWindow())
	}
	r.total = r.newWindow()
	n := r.buckets()
	r.seconds = make([]*second, n)
	r.sent = make([]atomic.Int64, n)
	r.expected = r.expectedCounts()
	if sched.online() && plan.Settled != nil {
		r.warmSecs = newWarmSeconds(int(sc.warm / cfg.bucket))
	}
	r.events = r.plannedEvents()
	timeout := plan.Workload.Timeout.D()
	if timeout <= 0 {
		timeout = bench.DefaultTimeout.D()
	}
	r.done = newSpool(timeout, cfg.bucket)
	return r
}

// expectedCounts are the open model's requests the schedule puts in each
// bucket of the profile; nil in the closed model.
func (r *recorder) expectedCounts() []int64 {
	if !r.cfg.open {
		return nil
	}
	sc := r.sched.load()
	expected := make([]int64, len(r.seconds))
	for b := range expected {
		start, end := r.bucketSpan(b)
		expected[b] = int64(sc.firstDue(sc.warm+end) - sc.firstDue(sc.warm+start))
	}
	return expected
}

func (r *recorder) newWindow() *window {
	w := &window{agg: NewAggregate(r.cfg.maxErrors, r.cfg.open)}
	if r.reqs.kinds() > 1 {
		for range r.reqs.kinds() {
			w.kinds = append(w.kinds, NewAggregate(r.cfg.maxErrors, r.cfg.open))
		}
		w.kindCompleted = make([]int64, len(w.kinds))
	}
	if r.cfg.open {
		w.lag, w.sched, w.wait = newLagHistogram(), newLagHistogram(), newLagHistogram()
	}
	return w
}

// newLagHistogram keeps send lags from 1 µs to a minute at 2 significant
// figures: small, and precise enough to tell 1 ms from 5.
func newLagHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, int64(time.Minute/time.Microsecond), 2)
}

func (w *window) add(o outcome) {
	w.agg.add(o)
	if w.kinds != nil {
		w.kinds[o.kind].add(o)
	}
	if o.waited {
		w.late++
	}
	w.conns = max(w.conns, o.conns)
	if w.lag != nil && !o.dropped {
		hdr.Record(w.lag, o.sent-o.intended)
		if o.split {
			hdr.Record(w.sched, o.sent-o.intended-o.connWait)
			hdr.Record(w.wait, o.connWait)
		}
	}
}

// buckets is how many buckets the profile spans.
func (r *recorder) buckets() int {
	return int((r.profile() + r.cfg.bucket - 1) / r.cfg.bucket)
}

// profile is the profile's length: a cut does not change it.
func (r *recorder) profile() time.Duration {
	sc := r.sched.load()
	return sc.end - sc.warm
}

// bucketSpan returns a bucket's start and end, from t0.
func (r *recorder) bucketSpan(b int) (time.Duration, time.Duration) {
	start := time.Duration(b) * r.cfg.bucket
	return start, min(start+r.cfg.bucket, r.profile())
}

// bucketOf returns the bucket of an offset from t0, clamped to the profile.
func (r *recorder) bucketOf(off time.Duration) int {
	return min(max(int(off/r.cfg.bucket), 0), len(r.seconds)-1)
}

// sending counts a closed-model request about to leave at t (attack clock),
// so that its bucket is not reported before it comes back. It takes no
// lock: it reads the schedule the client just sent by.
func (r *recorder) sending(t time.Duration) {
	switch off := t - r.sched.load().warm; {
	case off >= 0 && len(r.sent) > 0:
		r.sent[r.bucketOf(off)].Add(1)
	case off < 0 && r.warmSecs != nil:
		r.warmSecs.sending(t, r.cfg.bucket)
	}
}

// record files one outcome, and tells the observer of a measured one.
func (r *recorder) record(o outcome) {
	seq, measured, ok := r.file(o)
	if !ok || !measured || r.obs.Response == nil {
		return
	}
	r.obs.Response(r.response(o, seq))
}

// file files one outcome under the lock and numbers a measured one (from
// 0); false once the count stopped.
func (r *recorder) file(o outcome) (seq uint64, measured, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.canceled {
		return 0, false, false
	}
	r.fileSent(o)
	if o.success() {
		r.fileCompleted(o.kind, o.done)
		r.fileSpread(o)
	}
	seq, measured = r.seq, o.intended >= r.sched.load().warm
	if measured {
		r.seq++
	}
	return seq, measured, true
}

// response is a measured outcome in the terms of a results file: its
// latency from where the engine stamps it.
func (r *recorder) response(o outcome, seq uint64) bench.Response {
	began := r.began
	from := o.intended
	if o.atSend {
		from = o.sent
	}
	return bench.Response{
		Seq: seq, Method: r.reqs.method(o.kind), URL: r.reqs.urls[o.kind],
		Timestamp: began.Add(from), Latency: o.latency(), Code: o.code, Error: o.err,
		BytesIn: o.bytesIn, BytesOut: r.reqs.bytesOut(o.kind),
	}
}

// fileSent files an outcome by when it was scheduled to leave.
func (r *recorder) fileSent(o outcome) {
	off := o.intended - r.sched.load().warm
	if off < 0 {
		if r.warm != nil {
			r.warm.add(o)
		}
		if r.warmSecs != nil {
			r.warmSecs.add(o, r)
		}
		return
	}
	r.stages[r.stageAt(off)].add(o)
	r.total.add(o)
	b := r.bucketOf(off)
	if r.done.reported(b) {
		if d := r.done.at(b); d != nil {
			patchStats(&d.Stats, o) // came back after its second was reported
		}
		return
	}
	s := r.live(b)
	s.add(o)
	s.recorded++
}

// iterated counts an iteration that ended at done in the windows it ended in.
func (r *recorder) iterated(done time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	off := done - r.sched.load().warm
	if r.canceled || off < 0 || off >= r.profile() {
		return
	}
	r.stages[r.stageAt(off)].iterations++
	r.total.iterations++
	b := r.bucketOf(off)
	if r.done.reported(b) {
		if d := r.done.at(b); d != nil {
			d.Stats.Iterations++
			d.Stats.SetRates()
		}
		return
	}
	r.live(b).iterations++
}

// fileCompleted counts a successful response in the windows it arrived in.
func (r *recorder) fileCompleted(kind int, done time.Duration) {
	off := done - r.sched.load().warm
	switch {
	case off < 0:
		if r.warm != nil {
			r.warm.complete(kind)
		}
		if r.warmSecs != nil {
			r.warmSecs.complete(done, r)
		}
		return
	case off >= r.profile():
		return // after the end: its latency counts, its completion is in no window
	}
	r.stages[r.stageAt(off)].complete(kind)
	r.total.complete(kind)
	b := r.bucketOf(off)
	if r.done.reported(b) {
		if d := r.done.at(b); d != nil {
			d.Stats.Completed++
			d.Stats.SetRates()
		}
		return
	}
	r.live(b).completed++
}

// fileSpread counts a successful response in each second it was in
// flight in (from when it left to when it came back), by the share of its
// flight in each: the warm-up's seconds by attack time, the profile's from
// t0, nothing past the profile's end. Each second it reaches is still
// open: every request sent by a second's end is back before the second
// is reported or judged, so no share comes late (but after a final or
// cancelled report, which patches the second).
func (r *recorder) fileSpread(o outcome) {
	from, to := o.sent, o.done
	if to <= from {
		from = to - 1 // no measurable flight: all of it in the second it came back in
	}
	flight := float64(to - from)
	warm, bucket := r.sched.load().warm, r.cfg.bucket
	for t := from; t < to; {
		if t < warm {
			b := int(t / bucket)
			end := min(time.Duration(b+1)*bucket, warm, to)
			if ws := r.warmSecs; ws != nil && b >= ws.next && b < len(ws.seconds) {
				ws.live(b, r).spread += float64(end-t) / flight
			}
			t = end
			continue
		}
		off := t - warm
		if off >= r.profile() {
			return
		}
		b := r.bucketOf(off)
		_, bend := r.bucketSpan(b)
		end := min(warm+bend, to)
		share := float64(end-t) / flight
		if r.done.reported(b) {
			if d := r.done.at(b); d != nil {
				d.Stats.CompletedSpread += share
			}
		} else {
			r.live(b).spread += share
		}
		t = end
	}
}

// complete counts one successful response that arrived in the window.
func (w *window) complete(kind int) {
	w.completed++
	if w.kindCompleted != nil {
		w.kindCompleted[kind]++
	}
}

func (r *recorder) live(b int) *second {
	if r.seconds[b] == nil {
		r.seconds[b] = &second{window: *r.newWindow()}
	}
	return r.seconds[b]
}

// stageAt returns the profile stage running at off from t0; a request a
// hair after the end counts in the last stage.
func (r *recorder) stageAt(off time.Duration) int {
	sc := r.sched.load()
	if seg := sc.at(sc.warm + off); seg != nil && seg.stage >= 0 {
		return seg.stage
	}
	return len(r.stages) - 1
}

// plannedEvents lists the Observer calls in time order: the warm-up's
// start, t0, then each stage's start. A cut plans them again, the same
// calls at their new times.
func (r *recorder) plannedEvents() []event {
	var evs []event
	warm, t0 := r.sched.load().warm, r.t0
	if r.warm != nil && r.obs.Stage != nil {
		w := r.warmupResult()
		evs = append(evs, event{0, func() { r.obs.Stage(w) }})
	}
	if r.obs.Start != nil {
		evs = append(evs, event{warm, func() { r.obs.Start(t0) }})
	}
	for i := range r.plan.Profile.Stages {
		if r.obs.Stage == nil {
			break
		}
		s := r.stageResult(i)
		evs = append(evs, event{warm + s.StartOffset.D(), func() { r.obs.Stage(s) }})
	}
	return evs
}

// sampleNow reads the generator's counters at attack time at.
func (r *recorder) sampleNow(at time.Duration) sample {
	s := sample{at: at, cpu: processCPU(), in: r.cfg.wire.in.Load(), out: r.cfg.wire.out.Load()}
	s.steal, s.ticks = machineSteal()
	if r.cfg.apiRequests != nil {
		s.api = r.cfg.apiRequests()
	}
	return s
}

// tick fires the events that are due, samples the generator at the bucket
// boundaries passed, and reports the buckets that are complete. It returns
// the observer calls to make, so that they run outside the lock.
func (r *recorder) tick(now time.Duration, final bool) []func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	var calls []func()
	for !r.canceled && len(r.events) > 0 && now >= r.events[0].at {
		calls = append(calls, r.events[0].fire)
		r.events = r.events[1:]
		r.fired++
	}
	r.takeSamples(now)
	calls = append(calls, r.judgeWarmup(now)...)
	for r.next < r.reportable() && r.complete(r.next, now, final) {
		if b := r.report(r.next); r.obs.Second != nil {
			calls = append(calls, func() { r.obs.Second(b) })
		}
		r.next++
	}
	return calls
}

// takeSamples samples at the start, at t0 and at each bucket end passed,
// once each, up to the measured end.
func (r *recorder) takeSamples(now time.Duration) {
	limit := r.sched.load().warm + r.measured()
	for len(r.samples) < len(r.seconds)+2 {
		at := r.nextSampleAt()
		if at > now || (len(r.samples) > 1 && at > limit) {
			return
		}
		r.samples = append(r.samples, r.sampleNow(now))
	}
}

// reportable is how many buckets there are to report: all of them, or
// those a cancelled attack reached.
func (r *recorder) reportable() int {
	return min(len(r.seconds), int((r.measured()+r.cfg.bucket-1)/r.cfg.bucket))
}

// nextSampleAt is when the next sample is due: 0, t0, then bucket ends.
func (r *recorder) nextSampleAt() time.Duration {
	switch n := len(r.samples); n {
	case 0:
		return 0
	case 1:
		return r.sched.load().warm
	default:
		_, end := r.bucketSpan(n - 2)
		return r.sched.load().warm + end
	}
}

// complete says whether bucket b can be reported: it is over and every
// request in it has come back (the schedule's count in the open model, the
// sends counted in the closed one), or the attack is over.
func (r *recorder) complete(b int, now time.Duration, final bool) bool {
	if final {
		return true
	}
	_, end := r.bucketSpan(b)
	if now < r.sched.load().warm+end || r.canceled {
		return false
	}
	var recorded int64
	if s := r.seconds[b]; s != nil {
		recorded = s.recorded
	}
	want := r.sent[b].Load()
	if r.cfg.open {
		want = r.expected[b]
	}
	return recorded >= want
}

// report summarises bucket b and keeps it.
func (r *recorder) report(b int) bench.Bucket {
	start, end := r.bucketSpan(b)
	elapsed := min(end, r.measured()) - start
	s := r.seconds[b]
	r.seconds[b] = nil
	if s == nil {
		s = &second{window: *r.newWindow()}
	}
	// Each second keeps its histogram: the steady part of a stage is a run
	// of seconds, and its percentiles come from merging theirs.
	st := s.agg.withHistograms(s.agg.stats(max(elapsed, 0), s.completed, 0, 0))
	st.Iterations, st.CompletedSpread = s.iterations, s.spread
	st.SetRates()
	g := r.generatorOver(&s.window, b, b+1)
	st.BytesIn, st.BytesOut = r.bytesOver(b, b+1)
	bucket := bench.Bucket{Second: b, Stage: r.stageAt(start), Stats: st, Generator: &g}
	if sc := r.sched.load(); r.cfg.open {
		bucket.Scheduled = sc.hitsBy(sc.warm+start+max(elapsed, 0)) - sc.hitsBy(sc.warm+start)
	}
	r.done.add(bucket)
	return bucket
}

// measured is how much of the profile ran: all of it, or up to the cancel.
func (r *recorder) measured() time.Duration {
	if r.stopped == 0 {
		return r.profile()
	}
	return min(max(r.stopped-r.sched.load().warm, 0), r.profile())
}

// deltas returns the counters' growth between the samples closing buckets
// from and to (exclusive), and the time between them; ok is false when the
// samples are missing.
func (r *recorder) deltas(from, to int) (sample, bool) {
	// samples[1] is t0; samples[k+2] ends bucket k.
	i, j := from+1, to+1
	if i < 0 || j >= len(r.samples) || i >= j {
		return sample{}, false
	}
	a, z := r.samples[i], r.samples[j]
	return sample{at: z.at - a.at, cpu: z.cpu - a.cpu, in: z.in - a.in, out: z.out - a.out, api: z.api - a.api,
		steal: z.steal - a.steal, ticks: z.ticks - a.ticks}, true
}

// stealShare is the share of the machine's CPU time the hypervisor took
// between two samples, 0 where it was not read.
func (d sample) stealShare() float64 {
	if d.ticks <= 0 {
		return 0
	}
	return float64(d.steal) / float64(d.ticks)
}

// bytesOver returns the bytes on the wire during buckets [from, to).
func (r *recorder) bytesOver(from, to int) (in, out int64) {
	d, ok := r.deltas(from, to)
	if !ok {
		return 0, 0
	}
	return d.in, d.out
}

// generatorOver returns the generator's figures over buckets [from, to),
// with a window's send lags.
func (r *recorder) generatorOver(w *window, from, to int) bench.Generator {
	g := bench.Generator{CPUs: r.cfg.cpus, Connections: r.cfg.connections, Late: w.late, Dropped: w.agg.dropped, Engine: r.cfg.engine}
	if w.conns > 0 {
		g.Connections = w.conns
	}
	if d, ok := r.deltas(from, to); ok && d.at > 0 {
		g.CPUShare = d.cpu.Seconds() / (d.at.Seconds() * float64(r.cfg.cpus))
		g.APIRequests = d.api
		g.StealShare = d.stealShare()
	}
	g.CPUSharePeak, g.StealSharePeak = g.CPUShare, g.StealShare
	for b := from; b < to && to-from > 1; b++ {
		if d, ok := r.deltas(b, b+1); ok && d.at > 0 {
			share := d.cpu.Seconds() / (d.at.Seconds() * float64(r.cfg.cpus))
			g.CPUSharePeak = max(g.CPUSharePeak, share)
			if share >= bench.GeneratorCPUBound {
				g.CPUBoundSeconds++
			}
			g.StealSharePeak = max(g.StealSharePeak, d.stealShare())
		}
	}
	if to-from == 1 && g.CPUShare >= bench.GeneratorCPUBound {
		g.CPUBoundSeconds = 1
	}
	if w.lag != nil && w.lag.TotalCount() > 0 {
		g.SendLagP99 = float64(w.lag.ValueAtQuantile(99)) / 1000
		g.SendLagMax = float64(w.lag.Max()) / 1000
	}
	if w.sched != nil && w.sched.TotalCount() > 0 {
		g.SchedulingLagP99 = float64(w.sched.ValueAtQuantile(99)) / 1000
		g.ConnectionWaitP99 = float64(w.wait.ValueAtQuantile(99)) / 1000
	}
	return g
}

// stop stops counting: a cancelled run's late results are not measured.
func (r *recorder) stop(at time.Duration, canceled bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped == 0 {
		r.stopped = at
	}
	r.canceled = r.canceled || canceled
}

// warmupResult is the warm-up as laid out, without Stats: open at its rate
// when fixed, the profile's model at the first stage's load (or a share of
// it) until steady.
func (r *recorder) warmupResult() bench.StageResult {
	sc := r.sched.load()
	seg := sc.segs[0]
	res := bench.StageResult{
		Index: warmupStage, Name: bench.WarmupName, Model: bench.ModelOpen, Warmup: true,
		StartOffset: bench.Duration(-sc.warm), Duration: bench.Duration(sc.warm), Rate: seg.to,
	}
	if r.plan.Warmup.UntilSteady {
		res.Model = r.plan.Profile.Model
	}
	if seg.closed {
		res.Rate, res.Concurrency = 0, int(seg.to)
	}
	return res
}

// stageResult returns stage i as planned, without Stats.
func (r *recorder) stageResult(i int) bench.StageResult {
	st := r.plan.Profile.Stages[i]
	sc := r.sched.load()
	seg := sc.segs[slices.IndexFunc(sc.segs, func(seg segment) bool { return seg.stage == i })]
	res := bench.StageResult{
		Index: i, Name: st.Name, Model: r.plan.Profile.Model,
		StartOffset: bench.Duration(seg.start - sc.warm), Duration: st.Duration,
	}
	res.Rate, res.Concurrency = executionOf(res.Model).stageLoad(st)
	return res
}

// result builds the attack's result from what was recorded; call it once
// every worker has returned and the last tick was final. It fails when
// the seconds written out could not be read back.
func (r *recorder) result() (*bench.AttackResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seconds, err := r.done.all()
	if err != nil {
		return nil, err
	}
	res := &bench.AttackResult{T0: r.t0, Seconds: seconds}
	if r.warm != nil {
		w := r.warmupResult()
		elapsed := min(r.stopAt(), r.sched.load().warm)
		w.Stats = r.warm.agg.withHistograms(r.warm.agg.stats(elapsed, r.warm.completed, 0, 0))
		if d, ok := r.warmBytes(); ok {
			w.Stats.BytesIn, w.Stats.BytesOut = d.in, d.out
		}
		res.Warmup = &w
	}
	measured := r.measured()
	for i := range r.stages {
		s := r.stageResult(i)
		if s.StartOffset.D() >= measured {
			break
		}
		elapsed := min(s.Duration.D(), measured-s.StartOffset.D())
		r.fillStage(&s, r.stages[i], elapsed)
		res.Stages = append(res.Stages, s)
	}
	total := bench.StageResult{StartOffset: 0, Duration: bench.Duration(measured)}
	r.fillStage(&total, r.total, measured)
	res.Total, res.Requests = total.Stats, total.Requests
	return res, nil
}

func (r *recorder) stopAt() time.Duration {
	if r.stopped == 0 {
		return r.sched.load().end
	}
	return r.stopped
}

func (r *recorder) warmBytes() (sample, bool) {
	if len(r.samples) < 2 {
		return sample{}, false
	}
	a, z := r.samples[0], r.samples[1]
	return sample{in: z.in - a.in, out: z.out - a.out}, true
}

// fillStage sets a stage's Stats, per-request figures, generator figures
// and flags from its window.
func (r *recorder) fillStage(s *bench.StageResult, w *window, elapsed time.Duration) {
	from := r.bucketOf(s.StartOffset.D())
	to := r.bucketOf(s.StartOffset.D()+elapsed-1) + 1
	in, out := r.bytesOver(from, to)
	s.Stats = w.agg.withHistograms(w.agg.stats(elapsed, w.completed, in, out))
	s.Stats.Iterations = w.iterations
	s.Stats.SetRates()
	for k, agg := range w.kinds {
		st := agg.withHistograms(agg.stats(elapsed, w.kindCompleted[k], 0, 0))
		s.Requests = append(s.Requests, bench.NamedStats{Name: r.reqs.names[k], Stats: st})
	}
	g := r.generatorOver(w, from, to)
	s.Generator = &g
	s.Flags = g.Flags(elapsed.Seconds())
}

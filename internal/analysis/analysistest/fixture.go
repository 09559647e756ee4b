// Package analysistest builds the runs that the tests of analysis and report
// share: statistics with real HDR histograms of a known spread, open runs
// of three targets, and crafted closed runs whose seconds say what each
// target measured. Both packages test against the same runs, so that a
// figure the analysis concludes is the one the renderer is checked on.
package analysistest

import (
	"fmt"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
)

// Spread describes the latencies of a set of requests: spread evenly from
// low to high milliseconds, failures counted separately.
type Spread struct {
	Requests, Failures int64
	Seconds            float64
	Low, High          float64 // ms
}

// StatsOf builds Stats whose stored latency summary and encoded histogram
// both describe the same spread.
func StatsOf(t *testing.T, s Spread) bench.Stats {
	t.Helper()
	h := hdr.New()
	successes := s.Requests - s.Failures
	for i := int64(0); i < successes; i++ {
		ms := s.Low
		if successes > 1 {
			ms += (s.High - s.Low) * float64(i) / float64(successes-1)
		}
		hdr.Record(h, time.Duration(ms*float64(time.Millisecond)))
	}
	st := bench.Stats{
		Requests:    s.Requests,
		Successes:   successes,
		OfferedRate: float64(s.Requests) / s.Seconds,
		Throughput:  float64(successes) / s.Seconds,
		Elapsed:     bench.Duration(s.Seconds * float64(time.Second)),
		Latency:     hdr.Summarize(h),
		Histogram:   Encode(t, h),
	}
	if s.Failures > 0 {
		st.Errors = []bench.ErrorCount{{Message: "context deadline exceeded", Count: s.Failures}}
	}
	return st
}

// Encode encodes h as bench.Stats keep a histogram, failing the test on error.
func Encode(t *testing.T, h *hdrhistogram.Histogram) string {
	t.Helper()
	s, err := hdr.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TotalOf sums stage stats into a whole-attack total, merging histograms.
func TotalOf(t *testing.T, stages []bench.StageResult) *bench.Stats {
	t.Helper()
	var total bench.Stats
	var hists []string
	for _, s := range stages {
		total.Requests += s.Stats.Requests
		total.Successes += s.Stats.Successes
		total.Completed += s.Stats.Completed
		total.BytesIn += s.Stats.BytesIn
		total.BytesOut += s.Stats.BytesOut
		total.Elapsed += s.Stats.Elapsed
		total.Errors = append(total.Errors, s.Stats.Errors...)
		hists = append(hists, s.Stats.Histogram)
	}
	seconds := total.Elapsed.D().Seconds()
	total.OfferedRate = float64(total.Requests) / seconds
	total.Throughput = float64(total.Successes) / seconds
	if total.Completed > 0 {
		total.Throughput = float64(total.Completed) / seconds
	}
	h, err := hdr.Merge(hists...)
	if err != nil {
		t.Fatal(err)
	}
	total.Latency = hdr.Summarize(h)
	total.Histogram = Encode(t, h)
	return &total
}

// Created is when the fixture runs were created.
var Created = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// OpenSpec is a two-stage open profile against the heavy endpoint.
func OpenSpec() bench.RunSpec {
	s := bench.RunSpec{
		Targets: []string{bench.TargetGo, bench.TargetJavaPlatform, bench.TargetJavaVirtual},
		Profile: bench.Profile{Name: "steps", Model: bench.ModelOpen, Stages: []bench.Stage{
			{Name: "ramp", Duration: bench.Duration(10 * time.Second), Rate: 100, Ramp: true},
			{Name: "plateau", Duration: bench.Duration(20 * time.Second), Rate: 200},
		}},
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Params: map[string]string{"duration": "100"}}}},
		Warmup:   bench.Warmup{Duration: bench.DefaultWarmupDuration, Rate: bench.DefaultWarmupRate},
	}
	s.ApplyDefaults()
	return s
}

// Environment is the fixture runs' machine.
func Environment() bench.Environment {
	return bench.Environment{
		Machine: bench.Machine{Host: "bench-1", OS: "linux", Kernel: "6.1.0-18-amd64", CPUModel: "AMD EPYC 7B13", CPUs: 2,
			MemoryBytes: 24 << 30, DockerVersion: "20.10.24", CgroupVersion: "v1"},
		OrchestratorGo: "go1.26.0", LoadCPUSet: "0", TargetCPUSet: "1", CPUSplitApplied: true,
	}
}

// openTarget is a target that ran the open spec: a warm-up, a ramp at lowMs
// and a plateau spreading from lowMs to highMs.
func openTarget(t *testing.T, name string, plateauRPS float64, lowMs, highMs float64, failures int64) bench.TargetResult {
	t.Helper()
	stages := []bench.StageResult{
		{Index: 0, Name: "ramp", Model: bench.ModelOpen, Duration: bench.Duration(10 * time.Second), Rate: 100,
			Stats: StatsOf(t, Spread{Requests: 500, Seconds: 10, Low: lowMs, High: lowMs * 1.1})},
		{Index: 1, Name: "plateau", Model: bench.ModelOpen, StartOffset: bench.Duration(10 * time.Second),
			Duration: bench.Duration(20 * time.Second), Rate: 200,
			Stats: StatsOf(t, Spread{Requests: int64(plateauRPS * 20), Failures: failures, Seconds: 20, Low: lowMs, High: highMs})},
	}
	started := Created.Add(time.Minute)
	seconds := append(bucketsOf(0, 0, Spread{Requests: 500, Seconds: 10, Low: lowMs, High: lowMs * 1.1}, true),
		bucketsOf(1, 10, Spread{Requests: int64(plateauRPS * 20), Failures: failures, Seconds: 20, Low: lowMs, High: highMs}, false)...)
	return bench.TargetResult{
		Target: name, Status: bench.TargetSucceeded,
		Image:     bench.ImageInfo{Ref: "threadbench/" + name + ":dev", Runtime: runtimes[name], Cached: true},
		Limits:    bench.Limits{CPUs: 1, MemoryMiB: 1024},
		CPUSet:    "1",
		StartupMs: startups[name],
		Warmup: &bench.StageResult{Index: -1, Name: "warm-up", Model: bench.ModelOpen, Warmup: true, Rate: 50,
			Duration: bench.Duration(10 * time.Second), Stats: StatsOf(t, Spread{Requests: 500, Seconds: 10, Low: lowMs * 2, High: lowMs * 4})},
		Stages:    stages,
		Total:     TotalOf(t, stages),
		Seconds:   seconds,
		StartedAt: &started,
	}
}

// bucketsOf returns the per-second buckets of a stage starting at second
// from, whose requests s describes: spread evenly over its seconds (rising
// linearly on a ramp), each second's figures wobbling by a deterministic
// ±2% so that within-run intervals and tests have something to rest on.
func bucketsOf(stage, from int, s Spread, ramp bool) []bench.Bucket {
	n := int(s.Seconds)
	buckets := make([]bench.Bucket, n)
	for i := range buckets {
		share := 1 / float64(n)
		if ramp {
			share = (2*float64(i) + 1) / float64(n*n)
		}
		requests := int64(math.Round(float64(s.Requests) * share))
		failures := int64(math.Round(float64(s.Failures) * share))
		w := Wobble(from + i)
		mid := (s.Low + s.High) / 2
		st := bench.Stats{Requests: requests, Successes: requests - failures, Completed: requests - failures,
			OfferedRate: float64(requests), Throughput: float64(requests-failures) * w, Elapsed: bench.Duration(time.Second),
			Latency: bench.Latency{Min: s.Low, Mean: mid * w, P50: mid * w, P90: (s.Low + 0.9*(s.High-s.Low)) * w,
				P95: (s.Low + 0.95*(s.High-s.Low)) * w, P99: (s.Low + 0.99*(s.High-s.Low)) * w,
				P999: s.High * w, Max: s.High * w}}
		buckets[i] = bench.Bucket{Second: from + i, Stage: stage, Stats: st}
	}
	return buckets
}

// Wobble is a deterministic factor from 0.98 to 1.02 for second i.
func Wobble(i int) float64 { return 1 + 0.01*float64((i*7)%5-2) }

var (
	runtimes = map[string]string{bench.TargetGo: "go1.26.0", bench.TargetJavaPlatform: "OpenJDK 25.0.3+9", bench.TargetJavaVirtual: "OpenJDK 25.0.3+9"}
	startups = map[string]float64{bench.TargetGo: 38, bench.TargetJavaPlatform: 2412.5, bench.TargetJavaVirtual: 2380}
)

// javaResources are per-stage resource summaries of a Java target.
func javaResources(platformPeak, virtualPeak, workingSetMiB, cpuPer1k float64) []bench.StageResources {
	warm := Resources(-1, map[string]float64{bench.ThreadPlatform: 300, bench.ThreadVirtual: virtualPeak * 3},
		map[string]float64{bench.MemoryWorkingSet: 900 << 20})
	warm.Warmup, warm.CPUSecondsPer1k, warm.GCPauses = true, 9, 40
	first := Resources(0, map[string]float64{bench.ThreadPlatform: platformPeak / 2, bench.ThreadVirtual: virtualPeak / 2},
		map[string]float64{bench.MemoryWorkingSet: workingSetMiB / 2 * (1 << 20), bench.MemoryThreadStacks: 12 << 20})
	first.CPUSecondsPer1k, first.GCPauses, first.GCPauseSeconds = cpuPer1k*2, 3, 0.012
	second := Resources(1, map[string]float64{bench.ThreadPlatform: platformPeak, bench.ThreadVirtual: virtualPeak},
		map[string]float64{bench.MemoryWorkingSet: workingSetMiB * (1 << 20), bench.MemoryThreadStacks: 25 << 20})
	second.CPUSecondsPer1k, second.GCPauses, second.GCPauseSeconds = cpuPer1k, 7, 0.031
	return []bench.StageResources{warm, first, second}
}

// Resources is a stage's resources with the given peaks (means equal);
// zero peaks are left out, as a target that does not report them would.
func Resources(stage int, threads, memory map[string]float64) bench.StageResources {
	r := bench.StageResources{Stage: stage}
	for kind, v := range threads {
		if v != 0 {
			r.Threads = setGauge(r.Threads, kind, v)
		}
	}
	for kind, v := range memory {
		if v != 0 {
			r.Memory = setGauge(r.Memory, kind, v)
		}
	}
	return r
}

func setGauge(m map[string]bench.Gauge, kind string, v float64) map[string]bench.Gauge {
	if m == nil {
		m = map[string]bench.Gauge{}
	}
	m[kind] = bench.Gauge{Peak: v, Mean: v}
	return m
}

// goResources are per-stage resource summaries of the Go target.
func goResources(goroutines1, workingSet1MiB float64, stacks1 float64, failures int) []bench.StageResources {
	first := Resources(0, map[string]float64{bench.ThreadGoroutine: 30}, map[string]float64{bench.MemoryWorkingSet: 12 << 20})
	first.CPUSecondsPer1k = 0.4
	second := Resources(1, map[string]float64{bench.ThreadGoroutine: goroutines1},
		map[string]float64{bench.MemoryWorkingSet: workingSet1MiB * (1 << 20), bench.MemoryThreadStacks: stacks1})
	second.CPUSecondsPer1k, second.ScrapeFailures = 0.3, failures
	return []bench.StageResources{first, second}
}

// BaseRun and HeadRun are two runs of the open spec: head has a faster Go
// target, a slower Java platform target, no Java virtual target, and twice
// the CPUs.
func BaseRun(t *testing.T) *bench.Run {
	t.Helper()
	finished := Created.Add(6 * time.Minute)
	started := Created.Add(30 * time.Second)
	r := &bench.Run{ID: "run-base", Name: "baseline", Status: bench.RunSucceeded, Spec: OpenSpec(),
		Environment: Environment(), CreatedAt: Created, StartedAt: &started, FinishedAt: &finished}
	jp := openTarget(t, bench.TargetJavaPlatform, 190, 101, 180, 12)
	jp.Resources = javaResources(210, 0, 310, 1.5)
	jv := openTarget(t, bench.TargetJavaVirtual, 200, 101, 130, 0)
	jv.Resources = javaResources(24, 190, 280, 1.2)
	gt := openTarget(t, bench.TargetGo, 199, 100.5, 120, 0)
	gt.Resources = goResources(45, 18, 1<<20, 1)
	r.Targets = []bench.TargetResult{gt, jp, jv}
	return r
}

func HeadRun(t *testing.T) *bench.Run {
	t.Helper()
	r := &bench.Run{ID: "run-head", Name: "two cpus", Status: bench.RunSucceeded, Spec: OpenSpec(),
		Environment: Environment(), CreatedAt: Created.Add(24 * time.Hour)}
	r.Spec.Targets = []string{bench.TargetGo, bench.TargetJavaPlatform}
	r.Spec.Limits.CPUs = 2
	gt := openTarget(t, bench.TargetGo, 200, 100.4, 110, 0)
	gt.Resources = goResources(46, 19, 0, 0)
	jp := openTarget(t, bench.TargetJavaPlatform, 170, 101, 260, 60)
	jp.Resources = javaResources(220, 0, 400, 1.8)
	r.Targets = []bench.TargetResult{gt, jp}
	return r
}

// Crafted is one target of a crafted closed run of one hold stage: its
// throughput in each second, and its latencies spread from low to high ms.
type Crafted struct {
	Target    string
	Settings  map[string]string
	PerSecond []float64
	Spread    []float64 // each second's CompletedSpread, when the run kept it
	Low, High float64
}

// CraftedRun is a closed run of one hold stage at clients on requests,
// whose targets measured what each crafted says.
func CraftedRun(t *testing.T, clients int, requests []bench.Request, targets ...Crafted) *bench.Run {
	t.Helper()
	seconds := len(targets[0].PerSecond)
	spec := bench.RunSpec{Profile: bench.Profile{Name: "crafted", Model: bench.ModelClosed, Stages: []bench.Stage{
		{Name: "c" + strconv.Itoa(clients), Duration: bench.Duration(time.Duration(seconds) * time.Second), Concurrency: clients}}},
		Workload: bench.Workload{Requests: requests}}
	spec.ApplyDefaults()
	r := &bench.Run{ID: "crafted", Status: bench.RunSucceeded, Spec: spec, CreatedAt: Created}
	for _, c := range targets {
		spec.Targets = append(spec.Targets, c.Target)
		var buckets []bench.Bucket
		var sum float64
		for i, v := range c.PerSecond {
			buckets = append(buckets, bench.Bucket{Second: i, Stats: bench.Stats{Requests: int64(v), Successes: int64(v),
				Completed: int64(v), Throughput: v, Elapsed: bench.Duration(time.Second),
				Latency: bench.Latency{Min: c.Low, Mean: (c.Low + c.High) / 2, P50: (c.Low + c.High) / 2, P99: c.High}}})
			if i < len(c.Spread) {
				buckets[i].Stats.CompletedSpread = c.Spread[i]
			}
			sum += v
		}
		st := StatsOf(t, Spread{Requests: int64(sum), Seconds: float64(seconds), Low: c.Low, High: c.High})
		st.Throughput, st.Completed = sum/float64(seconds), st.Successes
		stage := bench.StageResult{Name: spec.Profile.Stages[0].Name, Model: bench.ModelClosed, Concurrency: clients,
			Duration: spec.Profile.Stages[0].Duration, Stats: st}
		total := st
		r.Targets = append(r.Targets, bench.TargetResult{Target: c.Target, Status: bench.TargetSucceeded, Settings: c.Settings,
			Stages: []bench.StageResult{stage}, Total: &total, Seconds: buckets})
	}
	r.Spec.Targets = spec.Targets
	return r
}

// Around returns n values near center, each second's wobbling by ±2%.
func Around(center float64, n int) []float64 {
	values := make([]float64, n)
	for i := range values {
		values[i] = center * Wobble(i)
	}
	return values
}

// warming is n seconds rising linearly from lo to hi over the first
// knee seconds, then at hi with the fixture's wobble.
func warming(lo, hi float64, knee, n int) []float64 {
	values := Around(hi, n)
	for i := range knee {
		values[i] = lo + (hi-lo)*float64(i)/float64(knee)
	}
	return values
}

// SteadyRun is the run, one round: go flat at 2,400 req/s;
// java-platform warming up for 6 s of 30 then flat; java-virtual still
// climbing at the end of its stage.
func SteadyRun(t *testing.T) *bench.Run {
	climbing := make([]float64, 30)
	for i := range climbing {
		climbing[i] = 1300 + 40*float64(i)
	}
	return CraftedRun(t, 50, Heavy20,
		Crafted{Target: bench.TargetGo, PerSecond: Around(2400, 30), Low: 10, High: 30},
		Crafted{Target: bench.TargetJavaPlatform, PerSecond: warming(1500, 2400, 6, 30), Low: 10, High: 30},
		Crafted{Target: bench.TargetJavaVirtual, PerSecond: climbing, Low: 10, High: 30})
}

// Heavy20 is the workload: 50 clients on it are bound at 2,500 req/s.
var Heavy20 = []bench.Request{{Endpoint: "heavy", Params: map[string]string{"duration": "20"}, Weight: 1}}

// Trial is one trial of a crafted capacity search: its phase and offered
// rate, what it served and its p99 (ms), whether the search passed it,
// and, for a confirmation that never settles, how much its p50 climbs a
// second (a share of its start).
type Trial struct {
	Phase             string
	Rate, Served, P99 float64
	Pass              bool
	Climb             float64
}

// Searched is one target of a crafted capacity run: its settings (its
// thread model), its trials in order and the CPU seconds per 1,000
// requests its metrics recorded in each.
type Searched struct {
	Target   string
	Settings map[string]string
	Trials   []Trial
	CPUPer1k float64
}

// SearchHeavy is the search: p99 ≤ 300 ms on heavy?duration=200,
// where java-platform's 200 threads carry at most 1,000 req/s.
var SearchHeavy = []bench.Request{{Endpoint: "heavy", Params: map[string]string{"duration": "200"}, Weight: 1}}

// SearchRun is a capacity run of the three targets, each trial a
// stage with its seconds on its search's clock: go and java-virtual
// bracket up from 50 req/s, java-platform starts at its pool's bound, so
// that stage i of one target is at another rate than stage i of the next;
// go and java-virtual share their bracket's rates, java-virtual and
// java-platform a 750 req/s bisection. go is CPU-bound at 1,550 req/s;
// java-platform's confirmation at 985 req/s fails, its latency climbing,
// and it is confirmed at 970; java-virtual's second confirmation at 775
// never settles.
func SearchRun(t *testing.T) *bench.Run {
	t.Helper()
	bracket := func(rates ...float64) []Trial {
		var out []Trial
		for _, r := range rates {
			out = append(out, Trial{"bracket", r, r, 205, true, 0})
		}
		return out
	}
	confirm := func(rate, p99 float64, climb ...float64) []Trial {
		out := make([]Trial, 3)
		for i := range out {
			out[i] = Trial{"confirm", rate, rate * 0.998, p99, true, 0}
			if i < len(climb) {
				out[i].Climb = climb[i]
			}
		}
		return out
	}
	goTrials := append(bracket(50, 100, 200, 400, 800), Trial{"bracket", 1600, 1480, 2400, false, 0},
		Trial{"bisect", 1200, 1200, 230, true, 0}, Trial{"bisect", 1400, 1400, 250, true, 0},
		Trial{"bisect", 1500, 1500, 270, true, 0}, Trial{"bisect", 1550, 1550, 285, true, 0})
	jvTrials := append(bracket(50, 100, 200, 400), Trial{"bracket", 800, 700, 1800, false, 0},
		Trial{"bisect", 600, 600, 220, true, 0}, Trial{"bisect", 700, 700, 240, true, 0},
		Trial{"bisect", 750, 750, 260, true, 0}, Trial{"bisect", 775, 775, 275, true, 0})
	jpTrials := []Trial{{"bracket", 1000, 985, 900, false, 0}, {"bracket", 500, 500, 205, true, 0},
		{"bisect", 750, 750, 206, true, 0}, {"bisect", 875, 875, 210, true, 0}, {"bisect", 940, 940, 230, true, 0},
		{"bisect", 970, 970, 260, true, 0}, {"bisect", 985, 985, 285, true, 0}, {"confirm", 985, 980, 420, false, 0.08}}
	return CraftedSearch(t, SearchHeavy, "p99<=300ms",
		Searched{bench.TargetGo, nil, append(goTrials, confirm(1550, 290)...), 0.6},
		Searched{bench.TargetJavaPlatform, map[string]string{"javaThreadModel": "platform", "tomcatMaxThreads": "200"},
			append(jpTrials, confirm(970, 280)...), 0.4},
		Searched{bench.TargetJavaVirtual, map[string]string{"javaThreadModel": "virtual"},
			append(jvTrials, confirm(775, 280, 0, 0.05)...), 0.5})
}

// CraftedSearch is a capacity run on requests within objective whose
// targets' searches ran the trials each crafted says: 3 s short trials and
// 10 s confirmations a second apart, each a stage with its seconds and
// resources, the answer the rate its confirmations passed at and the
// first failing rate the lowest failure above it.
func CraftedSearch(t *testing.T, requests []bench.Request, objective string, targets ...Searched) *bench.Run {
	t.Helper()
	c := &bench.CapacitySpec{Objective: objective, Precision: 0.05, Budget: bench.Duration(5 * time.Minute)}
	spec := bench.RunSpec{Capacity: c, Workload: bench.Workload{Requests: requests},
		Profile: bench.Profile{Name: bench.CapacityProfileName, Model: bench.ModelOpen,
			Stages: []bench.Stage{{Duration: bench.DefaultCapacityConfirm, Rate: bench.DefaultCapacityStartRate}}},
		Warmup: bench.Warmup{Duration: bench.DefaultWarmupDuration, Rate: bench.DefaultWarmupRate}}
	spec.ApplyDefaults()
	r := &bench.Run{ID: "search", Status: bench.RunSucceeded, Spec: spec, Environment: Environment(), CreatedAt: Created}
	for _, s := range targets {
		r.Spec.Targets = append(r.Spec.Targets, s.Target)
		r.Targets = append(r.Targets, searchedTarget(t, s, objective))
	}
	return r
}

// searchedTarget is one crafted target's result: its trials as stages and
// seconds, and the search's answer.
func searchedTarget(t *testing.T, s Searched, objective string) bench.TargetResult {
	t.Helper()
	tr := bench.TargetResult{Target: s.Target, Status: bench.TargetSucceeded, Settings: s.Settings, Limits: bench.Limits{CPUs: 1, MemoryMiB: 1024},
		Image: bench.ImageInfo{Ref: "threadbench/" + s.Target + ":dev", Runtime: runtimes[s.Target]}}
	c := &bench.CapacityResult{Objective: objective, Stop: "precision", Reason: "the bracket is 3.1% wide (asked 5.0%)",
		Trials: len(s.Trials), Start: s.Trials[0].Rate}
	var offset time.Duration
	for i, trial := range s.Trials {
		st := trialStage(t, i, trial, offset)
		tr.Stages = append(tr.Stages, st)
		tr.Seconds = append(tr.Seconds, trialSeconds(i, trial, offset)...)
		res := bench.StageResources{Stage: i, CPUSecondsPer1k: s.CPUPer1k}
		tr.Resources = append(tr.Resources, res)
		step := bench.CapacityTrial{Stage: i, Phase: bench.CapacityPhase(trial.Phase), Rate: trial.Rate, Throughput: st.Stats.Throughput, P99: st.Stats.Latency.P99, Pass: trial.Pass}
		if !trial.Pass {
			step.Violations = []string{fmt.Sprintf("p99 %.0fms > 300ms", st.Stats.Latency.P99)}
		}
		c.Steps = append(c.Steps, step)
		if trial.Phase == "confirm" {
			c.Rate = trial.Rate // the last round's: the one that passed
		}
		offset += st.Duration.D() + time.Second
	}
	for _, step := range c.Steps {
		if step.Phase == "confirm" && step.Rate == c.Rate {
			c.Confirmations = append(c.Confirmations, step)
		}
		if !step.Pass && step.Rate > c.Rate && (c.Failed == nil || step.Rate < c.Failed.Rate) {
			failed := step
			c.Failed = &failed
		}
	}
	c.Width, c.Spent = (c.Failed.Rate-c.Rate)/c.Failed.Rate, bench.Duration(offset)
	total := tr.Stages[c.Confirmations[len(c.Confirmations)-1].Stage].Stats
	tr.Capacity, tr.Total = c, &total
	return tr
}

// trialStage is a trial as a stage: 3 s short, 10 s a confirmation.
func trialStage(t *testing.T, index int, trial Trial, offset time.Duration) bench.StageResult {
	seconds := 3.0
	if trial.Phase == "confirm" {
		seconds = 10
	}
	st := StatsOf(t, Spread{Requests: int64(trial.Served * seconds), Seconds: seconds, Low: trial.P99 * 0.6, High: trial.P99})
	st.Completed, st.OfferedRate = st.Successes, trial.Rate
	return bench.StageResult{Index: index, Name: fmt.Sprintf("%s %.0f/s", trial.Phase, trial.Rate), Model: bench.ModelOpen,
		StartOffset: bench.Duration(offset), Duration: bench.Duration(seconds * float64(time.Second)), Rate: trial.Rate, Stats: st}
}

// trialSeconds are a trial's seconds on its search's clock, wobbling by
// ±2%, the p50 climbing as the trial says.
func trialSeconds(index int, trial Trial, offset time.Duration) []bench.Bucket {
	n := 3
	if trial.Phase == "confirm" {
		n = 10
	}
	buckets := bucketsOf(index, int(offset/time.Second), Spread{Requests: int64(trial.Served) * int64(n), Seconds: float64(n),
		Low: trial.P99 * 0.6, High: trial.P99}, false)
	for i := range buckets {
		buckets[i].Stats.Latency.P50 *= 1 + trial.Climb*float64(i)
	}
	return buckets
}

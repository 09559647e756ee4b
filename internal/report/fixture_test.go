package report_test

import (
	"math"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
)

// spread describes the latencies of a set of requests: spread evenly from
// low to high milliseconds, failures counted separately.
type spread struct {
	requests, failures int64
	seconds            float64
	low, high          float64 // ms
}

// statsOf builds Stats whose stored latency summary and encoded histogram
// both describe the same spread.
func statsOf(t *testing.T, s spread) bench.Stats {
	t.Helper()
	h := hdr.New()
	successes := s.requests - s.failures
	for i := int64(0); i < successes; i++ {
		ms := s.low
		if successes > 1 {
			ms += (s.high - s.low) * float64(i) / float64(successes-1)
		}
		hdr.Record(h, time.Duration(ms*float64(time.Millisecond)))
	}
	st := bench.Stats{
		Requests:    s.requests,
		Successes:   successes,
		OfferedRate: float64(s.requests) / s.seconds,
		Throughput:  float64(successes) / s.seconds,
		Elapsed:     bench.Duration(s.seconds * float64(time.Second)),
		Latency:     hdr.Summarize(h),
		Histogram:   encode(t, h),
	}
	if s.failures > 0 {
		st.Errors = []bench.ErrorCount{{Message: "context deadline exceeded", Count: s.failures}}
	}
	return st
}

func encode(t *testing.T, h *hdrhistogram.Histogram) string {
	t.Helper()
	s, err := hdr.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// totalOf sums stage stats into a whole-attack total, merging histograms.
func totalOf(t *testing.T, stages []bench.StageResult) *bench.Stats {
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
	total.Histogram = encode(t, h)
	return &total
}

var created = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// openSpec is a two-stage open profile against the heavy endpoint.
func openSpec() bench.RunSpec {
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

func environment() bench.Environment {
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
			Stats: statsOf(t, spread{requests: 500, seconds: 10, low: lowMs, high: lowMs * 1.1})},
		{Index: 1, Name: "plateau", Model: bench.ModelOpen, StartOffset: bench.Duration(10 * time.Second),
			Duration: bench.Duration(20 * time.Second), Rate: 200,
			Stats: statsOf(t, spread{requests: int64(plateauRPS * 20), failures: failures, seconds: 20, low: lowMs, high: highMs})},
	}
	started := created.Add(time.Minute)
	seconds := append(bucketsOf(0, 0, spread{requests: 500, seconds: 10, low: lowMs, high: lowMs * 1.1}, true),
		bucketsOf(1, 10, spread{requests: int64(plateauRPS * 20), failures: failures, seconds: 20, low: lowMs, high: highMs}, false)...)
	return bench.TargetResult{
		Target: name, Status: bench.TargetSucceeded,
		Image:     bench.ImageInfo{Ref: "threadbench/" + name + ":dev", Runtime: runtimes[name], Cached: true},
		Limits:    bench.Limits{CPUs: 1, MemoryMiB: 1024},
		CPUSet:    "1",
		StartupMs: startups[name],
		Warmup: &bench.StageResult{Index: -1, Name: "warm-up", Model: bench.ModelOpen, Warmup: true, Rate: 50,
			Duration: bench.Duration(10 * time.Second), Stats: statsOf(t, spread{requests: 500, seconds: 10, low: lowMs * 2, high: lowMs * 4})},
		Stages:    stages,
		Total:     totalOf(t, stages),
		Seconds:   seconds,
		StartedAt: &started,
	}
}

// bucketsOf returns the per-second buckets of a stage starting at second
// from, whose requests s describes: spread evenly over its seconds (rising
// linearly on a ramp), each second's figures wobbling by a deterministic
// ±2% so that within-run intervals and tests have something to rest on.
func bucketsOf(stage, from int, s spread, ramp bool) []bench.Bucket {
	n := int(s.seconds)
	buckets := make([]bench.Bucket, n)
	for i := range buckets {
		share := 1 / float64(n)
		if ramp {
			share = (2*float64(i) + 1) / float64(n*n)
		}
		requests := int64(math.Round(float64(s.requests) * share))
		failures := int64(math.Round(float64(s.failures) * share))
		w := wobble(from + i)
		mid := (s.low + s.high) / 2
		st := bench.Stats{Requests: requests, Successes: requests - failures, Completed: requests - failures,
			OfferedRate: float64(requests), Throughput: float64(requests-failures) * w, Elapsed: bench.Duration(time.Second),
			Latency: bench.Latency{Min: s.low, Mean: mid * w, P50: mid * w, P90: (s.low + 0.9*(s.high-s.low)) * w,
				P95: (s.low + 0.95*(s.high-s.low)) * w, P99: (s.low + 0.99*(s.high-s.low)) * w,
				P999: s.high * w, Max: s.high * w}}
		buckets[i] = bench.Bucket{Second: from + i, Stage: stage, Stats: st}
	}
	return buckets
}

// wobble is a deterministic factor from 0.98 to 1.02 for second i.
func wobble(i int) float64 { return 1 + 0.01*float64((i*7)%5-2) }

var (
	runtimes = map[string]string{bench.TargetGo: "go1.26.0", bench.TargetJavaPlatform: "OpenJDK 25.0.3+9", bench.TargetJavaVirtual: "OpenJDK 25.0.3+9"}
	startups = map[string]float64{bench.TargetGo: 38, bench.TargetJavaPlatform: 2412.5, bench.TargetJavaVirtual: 2380}
)

// javaResources are per-stage resource summaries of a Java target.
func javaResources(platformPeak, virtualPeak, workingSetMiB, cpuPer1k float64) []bench.StageResources {
	warm := resources(-1, map[string]float64{bench.ThreadPlatform: 300, bench.ThreadVirtual: virtualPeak * 3},
		map[string]float64{bench.MemoryWorkingSet: 900 << 20})
	warm.Warmup, warm.CPUSecondsPer1k, warm.GCPauses = true, 9, 40
	first := resources(0, map[string]float64{bench.ThreadPlatform: platformPeak / 2, bench.ThreadVirtual: virtualPeak / 2},
		map[string]float64{bench.MemoryWorkingSet: workingSetMiB / 2 * (1 << 20), bench.MemoryThreadStacks: 12 << 20})
	first.CPUSecondsPer1k, first.GCPauses, first.GCPauseSeconds = cpuPer1k*2, 3, 0.012
	second := resources(1, map[string]float64{bench.ThreadPlatform: platformPeak, bench.ThreadVirtual: virtualPeak},
		map[string]float64{bench.MemoryWorkingSet: workingSetMiB * (1 << 20), bench.MemoryThreadStacks: 25 << 20})
	second.CPUSecondsPer1k, second.GCPauses, second.GCPauseSeconds = cpuPer1k, 7, 0.031
	return []bench.StageResources{warm, first, second}
}

// resources is a stage's resources with the given peaks (means equal);
// zero peaks are left out, as a target that does not report them would.
func resources(stage int, threads, memory map[string]float64) bench.StageResources {
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
	first := resources(0, map[string]float64{bench.ThreadGoroutine: 30}, map[string]float64{bench.MemoryWorkingSet: 12 << 20})
	first.CPUSecondsPer1k = 0.4
	second := resources(1, map[string]float64{bench.ThreadGoroutine: goroutines1},
		map[string]float64{bench.MemoryWorkingSet: workingSet1MiB * (1 << 20), bench.MemoryThreadStacks: stacks1})
	second.CPUSecondsPer1k, second.ScrapeFailures = 0.3, failures
	return []bench.StageResources{first, second}
}

// baseRun and headRun are two runs of the open spec: head has a faster Go
// target, a slower Java platform target, no Java virtual target, and twice
// the CPUs.
func baseRun(t *testing.T) *bench.Run {
	t.Helper()
	finished := created.Add(6 * time.Minute)
	started := created.Add(30 * time.Second)
	r := &bench.Run{ID: "run-base", Name: "baseline", Status: bench.RunSucceeded, Spec: openSpec(),
		Environment: environment(), CreatedAt: created, StartedAt: &started, FinishedAt: &finished}
	jp := openTarget(t, bench.TargetJavaPlatform, 190, 101, 180, 12)
	jp.Resources = javaResources(210, 0, 310, 1.5)
	jv := openTarget(t, bench.TargetJavaVirtual, 200, 101, 130, 0)
	jv.Resources = javaResources(24, 190, 280, 1.2)
	gt := openTarget(t, bench.TargetGo, 199, 100.5, 120, 0)
	gt.Resources = goResources(45, 18, 1<<20, 1)
	r.Targets = []bench.TargetResult{gt, jp, jv}
	return r
}

func headRun(t *testing.T) *bench.Run {
	t.Helper()
	r := &bench.Run{ID: "run-head", Name: "two cpus", Status: bench.RunSucceeded, Spec: openSpec(),
		Environment: environment(), CreatedAt: created.Add(24 * time.Hour)}
	r.Spec.Targets = []string{bench.TargetGo, bench.TargetJavaPlatform}
	r.Spec.Limits.CPUs = 2
	gt := openTarget(t, bench.TargetGo, 200, 100.4, 110, 0)
	gt.Resources = goResources(46, 19, 0, 0)
	jp := openTarget(t, bench.TargetJavaPlatform, 170, 101, 260, 60)
	jp.Resources = javaResources(220, 0, 400, 1.8)
	r.Targets = []bench.TargetResult{gt, jp}
	return r
}

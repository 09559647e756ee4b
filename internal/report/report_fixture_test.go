package report_test

import (
	"math"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/internal/report"
)

// The three-target fixture: the three built-in targets under one closed
// profile (50, then 400 clients) on the seed's mix of heavy?duration=500
// and light, as a run stores it: warm-up, stages with per-request figures,
// per-second buckets, resources, settings, a generator-bound stage, and the
// scraped series the HTML report charts. Everything is computed from fixed
// numbers, so the goldens of every format stay put.

// requestShape is one request's latencies in a stage: spread from low to
// high ms, share of the stage's requests.
type requestShape struct {
	name      string
	share     float64
	low, high float64
}

// stageShape is one stage of a fixture target: its throughput and its
// requests' latencies.
type stageShape struct {
	throughput float64
	requests   []requestShape
}

// targetShape is a fixture target: its stages and the peaks of its
// resources per stage.
type targetShape struct {
	name      string
	runtime   string
	settings  map[string]string
	stages    [2]stageShape
	threads   [2]map[string]float64
	memoryMiB [2]map[string]float64
	cpuPer1k  [2]float64
	gcPauses  [2]float64
	generator [2]float64 // the generator's CPU share in each stage
}

var fixtureShapes = []targetShape{
	{name: bench.TargetGo, runtime: "go1.26.8",
		settings: map[string]string{"threadModel": "goroutines"},
		stages: [2]stageShape{
			{199, []requestShape{{"heavy?duration=500", 0.5, 500, 506}, {"light", 0.5, 0.2, 2}}},
			{1560, []requestShape{{"heavy?duration=500", 0.5, 500, 540}, {"light", 0.5, 0.3, 20}}},
		},
		threads:   [2]map[string]float64{{bench.ThreadPlatform: 5, bench.ThreadGoroutine: 60}, {bench.ThreadPlatform: 8, bench.ThreadGoroutine: 420}},
		memoryMiB: [2]map[string]float64{{bench.MemoryWorkingSet: 12, bench.MemoryHeap: 4, bench.MemoryThreadStacks: 0.5}, {bench.MemoryWorkingSet: 30, bench.MemoryHeap: 14, bench.MemoryThreadStacks: 2}},
		cpuPer1k:  [2]float64{0.12, 0.09}, gcPauses: [2]float64{2, 9}, generator: [2]float64{0.31, 0.93}},
	{name: bench.TargetJavaPlatform, runtime: "OpenJDK 25.0.3+9-LTS",
		settings: map[string]string{"javaThreadModel": "platform", "tomcatMaxThreads": "200"},
		stages: [2]stageShape{
			{198, []requestShape{{"heavy?duration=500", 0.5, 500, 510}, {"light", 0.5, 0.5, 4}}},
			{790, []requestShape{{"heavy?duration=500", 0.5, 500, 1100}, {"light", 0.5, 0.5, 600}}},
		},
		threads:   [2]map[string]float64{{bench.ThreadPlatform: 70}, {bench.ThreadPlatform: 215}},
		memoryMiB: [2]map[string]float64{{bench.MemoryWorkingSet: 190, bench.MemoryHeap: 50, bench.MemoryThreadStacks: 15}, {bench.MemoryWorkingSet: 260, bench.MemoryHeap: 90, bench.MemoryThreadStacks: 26}},
		cpuPer1k:  [2]float64{2.4, 1.2}, gcPauses: [2]float64{4, 9}, generator: [2]float64{0.3, 0.5}},
	{name: bench.TargetJavaVirtual, runtime: "OpenJDK 25.0.3+9-LTS",
		settings: map[string]string{"javaThreadModel": "virtual", "tomcatMaxThreads": "200"},
		stages: [2]stageShape{
			{197, []requestShape{{"heavy?duration=500", 0.5, 500, 512}, {"light", 0.5, 0.5, 5}}},
			{1500, []requestShape{{"heavy?duration=500", 0.5, 500, 560}, {"light", 0.5, 0.5, 40}}},
		},
		threads:   [2]map[string]float64{{bench.ThreadPlatform: 20, bench.ThreadCarrier: 2, bench.ThreadVirtual: 50}, {bench.ThreadPlatform: 22, bench.ThreadCarrier: 2, bench.ThreadVirtual: 400}},
		memoryMiB: [2]map[string]float64{{bench.MemoryWorkingSet: 200, bench.MemoryHeap: 60, bench.MemoryThreadStacks: 2.3}, {bench.MemoryWorkingSet: 330, bench.MemoryHeap: 180, bench.MemoryThreadStacks: 2.3}},
		cpuPer1k:  [2]float64{2.3, 1.1}, gcPauses: [2]float64{6, 30}, generator: [2]float64{0.3, 0.8}},
}

// fixtureClients are the clients of the fixture's two stages.
var fixtureClients = [2]int{50, 400}

const fixtureStageSeconds = 10

// threeTargetSpec is the fixture's spec: closed, 50 then 400 clients, the
// seed's mix.
func threeTargetSpec() bench.RunSpec {
	s := bench.RunSpec{
		Name:    "three targets",
		Targets: []string{bench.TargetGo, bench.TargetJavaPlatform, bench.TargetJavaVirtual},
		Profile: bench.Profile{Name: "mix-400", Model: bench.ModelClosed, Stages: []bench.Stage{
			{Name: "c50", Duration: bench.Duration(fixtureStageSeconds * time.Second), Concurrency: fixtureClients[0]},
			{Name: "c400", Duration: bench.Duration(fixtureStageSeconds * time.Second), Concurrency: fixtureClients[1]},
		}},
		Workload: bench.Workload{Requests: []bench.Request{
			{Endpoint: "heavy", Params: map[string]string{"duration": "500"}, Weight: 1},
			{Endpoint: "light", Weight: 1},
		}},
		Warmup: bench.Warmup{Duration: bench.Duration(5 * time.Second), Rate: 50},
	}
	s.ApplyDefaults()
	return s
}

// threeTargetRun is the fixture run.
func threeTargetRun(t *testing.T) *bench.Run {
	t.Helper()
	started, finished := analysistest.Created.Add(10*time.Second), analysistest.Created.Add(2*time.Minute)
	r := &bench.Run{ID: "run-three", Name: "three targets", Status: bench.RunSucceeded, Spec: threeTargetSpec(),
		Environment: analysistest.Environment(), CreatedAt: analysistest.Created, StartedAt: &started, FinishedAt: &finished}
	for _, shape := range fixtureShapes {
		r.Targets = append(r.Targets, fixtureTarget(t, shape))
	}
	return r
}

func fixtureTarget(t *testing.T, shape targetShape) bench.TargetResult {
	t.Helper()
	tr := bench.TargetResult{Target: shape.name, Status: bench.TargetSucceeded, Settings: shape.settings,
		Image:  bench.ImageInfo{Ref: "threadbench/" + shape.name + ":fixture", Runtime: shape.runtime, Cached: true},
		Limits: bench.Limits{CPUs: 1, MemoryMiB: 1024}, CPUSet: "1"}
	warm := requestStats(t, requestShape{"all", 1, 500, 520}, 250, 5)
	tr.Warmup = &bench.StageResult{Index: -1, Name: "warm-up", Model: bench.ModelOpen, Warmup: true, Rate: 50,
		StartOffset: bench.Duration(-5 * time.Second), Duration: bench.Duration(5 * time.Second), Stats: warm}
	var named [][]bench.NamedStats
	for i, st := range shape.stages {
		stage := fixtureStage(t, i, st, shape.generator[i])
		tr.Stages = append(tr.Stages, stage)
		named = append(named, stage.Requests)
		tr.Seconds = append(tr.Seconds, bucketsFrom(i, i*fixtureStageSeconds, stage.Stats)...)
		res := analysistest.Resources(i, shape.threads[i], mibToBytes(shape.memoryMiB[i]))
		res.CPUSecondsPer1k, res.GCPauses, res.GCPauseSeconds = shape.cpuPer1k[i], shape.gcPauses[i], shape.gcPauses[i]*0.004
		tr.Resources = append(tr.Resources, res)
	}
	tr.Total = analysistest.TotalOf(t, tr.Stages)
	for j := range named[0] {
		tr.Requests = append(tr.Requests, bench.NamedStats{Name: named[0][j].Name, Stats: *analysistest.TotalOf(t, []bench.StageResult{
			{Stats: named[0][j].Stats}, {Stats: named[1][j].Stats}})})
	}
	return tr
}

// fixtureStage is stage i of a fixture target: its requests' figures, the
// stage's merged from them, the generator's share and its flag.
func fixtureStage(t *testing.T, i int, st stageShape, generatorShare float64) bench.StageResult {
	t.Helper()
	s := bench.StageResult{Index: i, Name: threeTargetSpec().Profile.Stages[i].Name, Model: bench.ModelClosed,
		StartOffset: bench.Duration(time.Duration(i*fixtureStageSeconds) * time.Second),
		Duration:    bench.Duration(fixtureStageSeconds * time.Second), Concurrency: fixtureClients[i]}
	var hists []string
	for _, rq := range st.requests {
		ns := requestStats(t, rq, int64(st.throughput*rq.share*fixtureStageSeconds), fixtureStageSeconds)
		s.Requests = append(s.Requests, bench.NamedStats{Name: rq.name, Stats: ns})
		s.Stats.Requests += ns.Requests
		s.Stats.Successes += ns.Successes
		s.Stats.Completed += ns.Completed
		s.Stats.BytesIn += ns.Requests * 180
		s.Stats.BytesOut += ns.Requests * 90
		hists = append(hists, ns.Histogram)
	}
	s.Stats.Elapsed = s.Duration
	s.Stats.OfferedRate = float64(s.Stats.Requests) / fixtureStageSeconds
	s.Stats.Throughput = float64(s.Stats.Completed) / fixtureStageSeconds
	h, err := hdr.Merge(hists...)
	if err != nil {
		t.Fatal(err)
	}
	s.Stats.Latency, s.Stats.Histogram = hdr.Summarize(h), analysistest.Encode(t, h)
	s.Generator = &bench.Generator{CPUs: 1, CPUShare: generatorShare, CPUSharePeak: generatorShare, Connections: fixtureClients[i]}
	s.Flags = s.Generator.Flags(fixtureStageSeconds)
	return s
}

// requestStats is n requests of one shape over seconds, all succeeding.
func requestStats(t *testing.T, rq requestShape, n int64, seconds float64) bench.Stats {
	t.Helper()
	st := analysistest.StatsOf(t, analysistest.Spread{Requests: n, Seconds: seconds, Low: rq.low, High: rq.high})
	st.Completed = st.Successes
	return st
}

// bucketsFrom returns a stage's per-second buckets from second from: its
// requests spread evenly, each second's figures the stage's wobbling by a
// deterministic ±2%.
func bucketsFrom(stage, from int, st bench.Stats) []bench.Bucket {
	buckets := make([]bench.Bucket, fixtureStageSeconds)
	for i := range buckets {
		w := analysistest.Wobble(from + i)
		n := st.Requests / fixtureStageSeconds
		l := st.Latency
		buckets[i] = bench.Bucket{Second: from + i, Stage: stage, Stats: bench.Stats{
			Requests: n, Successes: n, Completed: n, OfferedRate: float64(n), Throughput: float64(n) * w,
			Elapsed: bench.Duration(time.Second), BytesIn: st.BytesIn / fixtureStageSeconds, BytesOut: st.BytesOut / fixtureStageSeconds,
			Latency: bench.Latency{Min: l.Min, Mean: l.Mean * w, P50: l.P50 * w, P90: l.P90 * w, P95: l.P95 * w,
				P99: l.P99 * w, P999: l.P999 * w, Max: l.Max * w}}}
	}
	return buckets
}

func mibToBytes(m map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		out[k] = v * (1 << 20)
	}
	return out
}

// fixtureTargets are catalog entries for the fixture: which series give
// which thread and memory figure, as the built-in catalog says.
func fixtureTargets() []bench.TargetInfo {
	javaThreads := []bench.FigureSource{
		{Figure: bench.ThreadPlatform, Series: []bench.SeriesRef{{Name: "jvm_threads_live_threads"}}},
		{Figure: bench.ThreadCarrier, Series: []bench.SeriesRef{{Name: "threadbench_carrier_threads"}}},
		{Figure: bench.ThreadVirtual, Series: []bench.SeriesRef{{Name: "threadbench_inflight_requests", Label: "thread", Value: "virtual"}}},
	}
	javaMemory := []bench.FigureSource{
		{Figure: bench.MemoryThreadStacks, Series: []bench.SeriesRef{{Name: "jvm_nmt_thread_committed_bytes"}}},
		{Figure: bench.MemoryHeap, Series: []bench.SeriesRef{{Name: "jvm_memory_used_bytes", Label: "area", Value: "heap"}}},
	}
	return []bench.TargetInfo{
		{Name: bench.TargetGo, Kind: "go", ThreadModel: "goroutines",
			Threads: []bench.FigureSource{
				{Figure: bench.ThreadPlatform, Series: []bench.SeriesRef{{Name: "go_threads"}}},
				{Figure: bench.ThreadGoroutine, Series: []bench.SeriesRef{{Name: "go_goroutines"}}},
			},
			Memory: []bench.FigureSource{
				{Figure: bench.MemoryThreadStacks, Series: []bench.SeriesRef{{Name: "go_memstats_stack_inuse_bytes"}}},
				{Figure: bench.MemoryHeap, Series: []bench.SeriesRef{{Name: "go_memstats_heap_inuse_bytes"}}},
			}},
		{Name: bench.TargetJavaPlatform, Kind: "java", ThreadModel: "platform", Threads: javaThreads, Memory: javaMemory},
		{Name: bench.TargetJavaVirtual, Kind: "java", ThreadModel: "virtual", Threads: javaThreads, Memory: javaMemory},
	}
}

// fixtureSeries are the scraped series of each fixture target, one point
// a second from the warm-up's start to the attack's end: each stage's
// resource peaks reached in a ramp over its first seconds.
func fixtureSeries() map[string][]bench.Series {
	out := map[string][]bench.Series{}
	for _, shape := range fixtureShapes {
		level := func(stage map[string]float64, key string, scale float64) func(sec int) float64 {
			return func(sec int) float64 { return stage[key] * scale }
		}
		at := func(pick func(i int) func(sec int) float64) []bench.Point {
			var points []bench.Point
			for sec := -5; sec <= 2*fixtureStageSeconds; sec++ {
				i := min(max(sec, 0)/fixtureStageSeconds, 1)
				v := pick(i)(sec)
				if sec < 0 {
					v *= 0.5
				}
				points = append(points, bench.Point{T: float64(sec), V: math.Round(v*analysistest.Wobble(sec+5)*1000) / 1000})
			}
			return points
		}
		series := func(name string, labels map[string]string, pick func(i int) func(sec int) float64) bench.Series {
			return bench.Series{Name: name, Labels: labels, Points: at(pick)}
		}
		counter := func(name string, perSecond func(i int) float64) bench.Series {
			s := bench.Series{Name: name}
			total := 0.0
			for sec := -5; sec <= 2*fixtureStageSeconds; sec++ {
				total += perSecond(min(max(sec, 0)/fixtureStageSeconds, 1)) * analysistest.Wobble(sec)
				s.Points = append(s.Points, bench.Point{T: float64(sec), V: math.Round(total*1000) / 1000})
			}
			return s
		}
		threads, memory := shape.threads, shape.memoryMiB
		pick := func(m [2]map[string]float64, key string, scale float64) func(i int) func(int) float64 {
			return func(i int) func(int) float64 { return level(m[i], key, scale) }
		}
		inflight := func(i int) func(int) float64 {
			return func(int) float64 { return math.Min(float64(fixtureClients[i]), shape.stages[i].throughput*0.25) }
		}
		var s []bench.Series
		kind := "goroutine"
		switch shape.settings["javaThreadModel"] {
		case "platform":
			kind = "platform"
			s = append(s, series("jvm_threads_live_threads", nil, pick(threads, bench.ThreadPlatform, 1)))
		case "virtual":
			kind = "virtual"
			s = append(s, series("jvm_threads_live_threads", nil, pick(threads, bench.ThreadPlatform, 1)),
				series("threadbench_carrier_threads", nil, pick(threads, bench.ThreadCarrier, 1)))
		default:
			s = append(s, series("go_threads", nil, pick(threads, bench.ThreadPlatform, 1)),
				series("go_goroutines", nil, pick(threads, bench.ThreadGoroutine, 1)))
		}
		s = append(s, series("threadbench_inflight_requests", map[string]string{"thread": kind}, inflight),
			series("container_memory_working_set_bytes", nil, pick(memory, bench.MemoryWorkingSet, 1<<20)),
			series("container_cpu_usage_ratio", nil, func(i int) func(int) float64 {
				return func(int) float64 { return math.Min(1, shape.stages[i].throughput*shape.cpuPer1k[i]/1000) }
			}))
		if kind == "goroutine" {
			s = append(s, series("go_memstats_heap_inuse_bytes", nil, pick(memory, bench.MemoryHeap, 1<<20)),
				series("go_memstats_stack_inuse_bytes", nil, pick(memory, bench.MemoryThreadStacks, 1<<20)),
				counter("go_gc_duration_seconds_count", func(i int) float64 { return shape.gcPauses[i] / fixtureStageSeconds }),
				counter("go_gc_duration_seconds_sum", func(i int) float64 { return shape.gcPauses[i] * 0.0004 / fixtureStageSeconds }))
		} else {
			s = append(s, series("jvm_memory_used_bytes", map[string]string{"area": "heap"}, pick(memory, bench.MemoryHeap, 1<<20)),
				series("jvm_nmt_thread_committed_bytes", nil, pick(memory, bench.MemoryThreadStacks, 1<<20)),
				counter("jvm_gc_pause_seconds_count", func(i int) float64 { return shape.gcPauses[i] / fixtureStageSeconds }),
				counter("jvm_gc_pause_seconds_sum", func(i int) float64 { return shape.gcPauses[i] * 0.004 / fixtureStageSeconds }))
		}
		if kind == "virtual" {
			s = append(s, series("threadbench_inflight_requests", map[string]string{"thread": "platform"}, func(int) func(int) float64 {
				return func(int) float64 { return 0 }
			}))
		}
		out[shape.name] = s
	}
	return out
}

// threeTargetSource is the fixture as the report renderers get it.
func threeTargetSource(t *testing.T) report.Source {
	t.Helper()
	return report.Source{Run: threeTargetRun(t), Series: fixtureSeries(), Targets: fixtureTargets()}
}

package report_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/report"
)

// experimentRun is a finished run of an experiment's part, every case
// succeeded with the figures fill gives it (by case, or target).
func experimentRun(t *testing.T, name, part string, fill func(key string, tr *bench.TargetResult)) *bench.Run {
	t.Helper()
	e, err := builtin.LookupExperiment(name)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := e.Spec(0, part)
	if err != nil {
		t.Fatal(err)
	}
	run := &bench.Run{ID: "r-" + name, Status: bench.RunSucceeded, Spec: spec}
	for _, c := range spec.RunCases() {
		tr := bench.TargetResult{Target: c.Target, Case: c.Name, Status: bench.TargetSucceeded}
		fill(tr.Label(), &tr)
		run.Targets = append(run.Targets, tr)
	}
	return run
}

// stats is a window's figures: n requests of which failed failed, over
// elapsed, with a latency spread from low to high ms around mean.
func stats(n, failed int64, elapsed time.Duration, low, mean, high float64) *bench.Stats {
	return &bench.Stats{Requests: n, Successes: n - failed, Completed: n - failed, Elapsed: bench.Duration(elapsed),
		Throughput: float64(n-failed) / elapsed.Seconds(),
		Latency:    bench.Latency{Min: low, Mean: mean, P50: mean, P90: (mean + high) / 2, P95: high * 0.98, P99: high, Max: high}}
}

func gauges(kv ...any) map[string]bench.Gauge {
	m := map[string]bench.Gauge{}
	for i := 0; i+2 < len(kv); i += 3 {
		m[kv[i].(string)] = bench.Gauge{Peak: kv[i+1].(float64), Mean: kv[i+2].(float64)}
	}
	return m
}

func writeExperiment(t *testing.T, run *bench.Run, format string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := report.WriteExperimentRun(&buf, run, format); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestExperimentK6(t *testing.T) {
	rates := map[string]float64{bench.TargetGo: 960, bench.TargetJavaVirtual: 952, bench.TargetJavaPlatform: 651}
	run := experimentRun(t, "seed-000", "", func(key string, tr *bench.TargetResult) {
		r := rates[key]
		tr.Total = stats(int64(r*54), 0, 54*time.Second, 0.1, 250, 540)
		tr.Total.Iterations, tr.Total.IterationRate = int64(r*27), r/2
		tr.Total.BytesIn, tr.Total.BytesOut = int64(r*54*190), int64(r*54*105) // about 190 B per answer, 105 per request
		tr.Requests = []bench.NamedStats{
			{Name: "heavy", Stats: *stats(int64(r*27), 0, 54*time.Second, 500, 501, 520)},
			{Name: "light", Stats: *stats(int64(r*27), 0, 54*time.Second, 0.1, 0.4, 9)},
		}
		// as stored: completions are counted for the whole attack only
		tr.Requests[1].Stats.Throughput = 0
	})
	golden(t, "experiment_seed-000.table.golden", writeExperiment(t, run, report.FormatTable))
	golden(t, "experiment_seed-000.markdown.golden", writeExperiment(t, run, report.FormatMarkdown))
}

func TestExperimentFanout(t *testing.T) {
	run := experimentRun(t, "seed-001", "callee-200", func(key string, tr *bench.TargetResult) {
		fan := bench.FanoutStats{Responses: 1, Calls: 1000, Succeeded: 1000, ElapsedMs: 6120, PeakConcurrent: 100,
			Call: &bench.Latency{P50: 602, P99: 640, Max: 655}, Done: &bench.Latency{P50: 3080, P90: 5530, Max: 6120}}
		if key == "go-unbounded" || key == "java-unbounded" {
			fan = bench.FanoutStats{Responses: 1, Calls: 1000, Succeeded: 201, Failed: 799, ElapsedMs: 1040, PeakConcurrent: 1000,
				Failures: bench.FanoutFailures{ReadTimeout: 790, ConnectTimeout: 9},
				Call:     &bench.Latency{P50: 1002, P99: 1030, Max: 1035}, Done: &bench.Latency{P50: 1010, P90: 1033, Max: 1040}}
		}
		if key == "java-pool" {
			fan.Call, fan.Done = nil, nil // a target that sent no histograms
		}
		tr.Total = stats(1, 0, 10*time.Second, fan.ElapsedMs, fan.ElapsedMs, fan.ElapsedMs)
		tr.Total.Fanout = &fan
		if tr.Target == bench.TargetGo {
			tr.Resources = []bench.StageResources{
				{Stage: 0, Threads: gauges(bench.ThreadPlatform, 6.0, 6.0, bench.ThreadGoroutine, 12.0, 12.0), Memory: gauges(bench.MemoryHeap, 4e6, 4e6, bench.MemoryThreadStacks, 5e5, 5e5)},
				{Stage: 1, Threads: gauges(bench.ThreadPlatform, 9.0, 8.0, bench.ThreadGoroutine, 2030.0, 900.0), Memory: gauges(bench.MemoryHeap, 30e6, 12e6, bench.MemoryThreadStacks, 9e6, 4e6), GCPauses: 6},
			}
			return
		}
		added := 2.0
		if key == "java-pool" {
			added = 101
		}
		tr.Resources = []bench.StageResources{
			{Stage: 0, Threads: gauges(bench.ThreadPlatform, 40.0, 40.0, bench.ThreadCarrier, 0.0, 0.0),
				Memory: gauges(bench.MemoryHeap, 40e6, 40e6, bench.MemoryThreadStacksReserved, 40*float64(1<<20), 40*float64(1<<20), bench.MemoryThreadStacks, 3*float64(1<<20), 3*float64(1<<20))},
			{Stage: 1, Threads: gauges(bench.ThreadPlatform, 40+added, 60.0, bench.ThreadCarrier, 1.0, 1.0),
				Memory:   gauges(bench.MemoryHeap, 90e6, 60e6, bench.MemoryThreadStacksReserved, (40+added)*float64(1<<20), 60*float64(1<<20), bench.MemoryThreadStacks, (3+added/20)*float64(1<<20), 4*float64(1<<20)),
				GCPauses: 3},
		}
		tr.DownstreamResources = []bench.StageResources{{Stage: 1, Threads: gauges(bench.ThreadPlatform, 232.0, 120.0)}}
		if key == "java-unbounded" || key == "java-semaphore" {
			// what the thread dumps listed: every call's virtual thread
			// parked at once, beside the request's own
			tr.Inside = &bench.Inside{VirtualThreads: []bench.VirtualThreadStage{
				{Stage: 0, Dumps: 5}, {Stage: 1, Dumps: 17, PeakAlive: 1002, MeanAlive: 366, PeakParked: 1001, MeanParked: 365}}}
		}
	})
	golden(t, "experiment_seed-001.table.golden", writeExperiment(t, run, report.FormatTable))
}

func TestExperimentStages(t *testing.T) {
	run := experimentRun(t, "seed-001-service", "", func(key string, tr *bench.TargetResult) {
		for i, st := range []int{50, 100, 200, 300, 400} {
			failed := int64(0)
			if (key == "java-virtual" || key == "go") && st > 200 {
				failed = int64(st-200) * 4
			}
			s := stats(int64(st)*6, failed, 6*time.Second, 1000, 1100, 1600)
			tr.Stages = append(tr.Stages, bench.StageResult{Index: i, Concurrency: st, Stats: *s})
		}
		tr.Total = &tr.Stages[4].Stats
	})
	golden(t, "experiment_seed-001-service.table.golden", writeExperiment(t, run, report.FormatTable))
}

// The reactive sheet: per stage each model's throughput, p99, OS threads
// and errors, then virtual threads' last stage as a share of WebFlux's.
func TestExperimentReactive(t *testing.T) {
	run := experimentRun(t, "reactive", "heavy", func(key string, tr *bench.TargetResult) {
		for i, clients := range []int{50, 200, 400} {
			rate := float64(clients) / 0.2
			if key == bench.TargetJavaPlatform {
				rate = min(rate, 1000) // 200 threads ÷ 200 ms
			}
			p99 := 210.0
			if float64(clients)/rate > 0.2 { // queued for a thread
				p99 = 1000 * float64(clients) / rate * 1.02
			}
			s := stats(int64(rate*6), 0, 6*time.Second, 200, 201, p99)
			tr.Stages = append(tr.Stages, bench.StageResult{Index: i, Concurrency: clients, Stats: *s})
			threads := map[string]float64{bench.TargetJavaPlatform: 230, bench.TargetJavaVirtual: 32, bench.TargetJavaReactive: 27}[key]
			if threads > 0 {
				tr.Resources = append(tr.Resources, bench.StageResources{Stage: i, Threads: gauges(bench.ThreadPlatform, threads, threads)})
			}
		}
		tr.Total = &tr.Stages[2].Stats
	})
	golden(t, "experiment_reactive.table.golden", writeExperiment(t, run, report.FormatTable))
}

func TestExperimentNGrinder(t *testing.T) {
	run := experimentRun(t, "seed-004", "", func(key string, tr *bench.TargetResult) {
		rate := map[string]float64{bench.TargetJavaPlatform: 330, bench.TargetJavaVirtual: 790, bench.TargetGo: 800}[key]
		tr.Total = stats(int64(rate*53.5), 0, 53500*time.Millisecond, 600, 500/rate*1000, 1800)
		tr.Seconds = []bench.Bucket{{Second: -1, Stats: bench.Stats{Throughput: 999}}, {Second: 20, Stats: bench.Stats{Throughput: rate * 1.1}}}
	})
	run.Targets[2].Status, run.Targets[2].Total, run.Targets[2].Error = bench.TargetFailed, nil, "start: never healthy"
	golden(t, "experiment_seed-004.table.golden", writeExperiment(t, run, report.FormatTable))
}

// The CPU-bound sheet: each runtime's figures with its CPU per request,
// the ratios and the claim beside ours; a runtime whose CPU was not read
// shows a dash.
func TestExperimentCPU(t *testing.T) {
	run := experimentRun(t, "cpu-bound", "", func(key string, tr *bench.TargetResult) {
		rate := map[string]float64{bench.TargetJavaPlatform: 240, bench.TargetJavaVirtual: 236, bench.TargetGo: 310}[key]
		tr.Total = stats(int64(rate*20), 0, 20*time.Second, 2, 50/rate*1000, 900)
		tr.Stages = []bench.StageResult{{Index: 0, Stats: *tr.Total}}
		if key != bench.TargetGo {
			tr.Resources = []bench.StageResources{{Stage: 0, CPUSecondsPer1k: 1000 / rate, Threads: gauges(bench.ThreadPlatform, 78.0, 70.0)}}
		}
	})
	golden(t, "experiment_cpu-bound.table.golden", writeExperiment(t, run, report.FormatTable))
}

func TestExperimentLocust(t *testing.T) {
	run := experimentRun(t, "seed-003", "", func(key string, tr *bench.TargetResult) {
		if key == "go-native" {
			tr.Image.Runtime = "go1.26.8"
			tr.Total = stats(800, 0, 8*time.Second, 1000, 1002, 1010)
			return
		}
		jdk := key[len(key)-2:]
		tr.Image.Runtime = "OpenJDK " + jdk + ".0.8+9-LTS"
		if jdk == "25" { // as GET /info says it; the JDK 21 ones as runs before it did
			tr.Settings = map[string]string{"info.framework": "Spring Boot 4.1.1 (Spring Framework 7.0.3, Apache Tomcat/11.0.24)"}
		}
		collapsed := strings.HasPrefix(key, "platform") || strings.HasPrefix(key, "native") || key == "synchronized@21"
		if collapsed {
			tr.Total = stats(108, 100, 8*time.Second, 1001, 4500, 8000)
		} else {
			tr.Total = stats(800, 0, 8*time.Second, 1000, 1004, 1030)
		}
		tr.Resources = []bench.StageResources{{Stage: 0}}
		if key == "synchronized@21" {
			tr.Resources[0].Pinned, tr.Resources[0].PinnedSeconds = 8, 8.02
		}
	})
	golden(t, "experiment_seed-003.table.golden", writeExperiment(t, run, report.FormatTable))
}

func TestExperimentList(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteExperiments(&buf, builtin.Experiments(), report.FormatTable); err != nil {
		t.Fatal(err)
	}
	golden(t, "experiments.table.golden", buf.Bytes())
}

// A run that is no experiment's gets no seed table.
func TestExperimentNone(t *testing.T) {
	if out := writeExperiment(t, &bench.Run{ID: "r1"}, report.FormatTable); len(out) != 0 {
		t.Errorf("wrote %q for a run without experiment", out)
	}
	if err := report.WriteExperimentRun(&bytes.Buffer{}, &bench.Run{}, "html"); bench.ErrorCode(err) != bench.EINVALID {
		t.Errorf("format html: %v, want invalid", err)
	}
}

// The db-pool sheet, pool of 100: each model's throughput beside the
// pool's bound and the bound at the hold the pool timed, where the
// requests waited, each connection's hold split into the database's time
// and the service's with its hand-over, and, where a model fell short of
// the pool's bound by more than 5 %, where its connections' round went.
func TestExperimentDBPool(t *testing.T) {
	type stageFigures struct{ rate, usedMs, dbMs, wakeMs float64 }
	figures := map[string][]stageFigures{
		bench.TargetJavaPlatform: {{240, 202.4, 201.8, 0.41}, {481, 205.2, 202.8, 1.07}, {487.5, 204.8, 203.6, 0.9}},
		bench.TargetJavaVirtual:  {{237, 203, 201.6, 0.88}, {430.5, 220.2, 203.2, 4.48}, {455, 210.4, 203.8, 3.0}},
		bench.TargetGo:           {{245, 201.2, 200.6, 0.45}, {476.5, 208.2, 205, 0.48}, {480.5, 207, 202.2, 0.62}},
	}
	run := experimentRun(t, "db-pool", "pool-100", func(key string, tr *bench.TargetResult) {
		for i, clients := range []int{50, 200, 400} {
			f := figures[key][i]
			s := stats(int64(f.rate*5), 0, 5*time.Second, 100, float64(clients)/f.rate*1000, 300)
			tr.Stages = append(tr.Stages, bench.StageResult{Index: i, Name: fmt.Sprintf("c%d", clients), Concurrency: clients, Stats: *s})
			active := min(100, f.rate*f.usedMs/1000)
			pending, peak := max(0, float64(clients)-100), active+2
			if pending > 0 { // every connection lent out at some sample
				peak = 100
			}
			tr.Resources = append(tr.Resources, bench.StageResources{Stage: i, WakeDelayMs: f.wakeMs, PoolUsageMs: f.usedMs,
				Pool: gauges(bench.PoolMax, 100.0, 100.0, bench.PoolActive, peak, active, bench.PoolPending, pending+3, pending)})
			tr.Database = append(tr.Database, bench.DatabaseStage{Stage: i,
				Connections: gauges(bench.DatabaseActive, 100.0, f.rate*f.dbMs/1000)})
		}
		tr.Total = &tr.Stages[2].Stats
		if key == bench.TargetJavaVirtual { // its last stage on a machine whose hypervisor took CPUs
			tr.Stages[2].Generator = &bench.Generator{CPUs: 1, StealShare: 0.17, StealSharePeak: 0.21}
			// Its seconds: each stage after a step of clients dips in its first.
			for i, completed := range [][]int64{{237, 237, 237, 237, 237}, {350, 440, 435, 440, 488}, {405, 462, 494, 461, 453}} {
				for k, c := range completed {
					tr.Seconds = append(tr.Seconds, bench.Bucket{Second: 5*i + k, Stage: i,
						Stats: bench.Stats{Completed: c, Successes: c, Requests: c, Throughput: float64(c), Elapsed: bench.Duration(time.Second)}})
				}
			}
		}
	})
	out := writeExperiment(t, run, report.FormatTable)
	golden(t, "experiment_db-pool.table.golden", out)
	if !strings.Contains(string(out), "virtual threads, c400: 93.5% of the pool's bound over its steady part (91.0% over the whole stage)") || !strings.Contains(string(out), "; disturbed: the machine's hypervisor took 17% of its CPU time") {
		t.Errorf("the shortfall at 400 clients does not say its stage was disturbed:\n%s", out)
	}
	// Each shortfall says what the seconds past the step of clients did.
	for _, want := range []string{"its first second, as the clients stepped up from 50, completed 350, the 4 after it 450.8 a second on average (90.2% of the bound)",
		"its first second, as the clients stepped up from 200, completed 405, the 4 after it 467.5 a second on average (93.5% of the bound)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the sheet lacks %q:\n%s", want, out)
		}
	}
	// The throughput is the report's stage figure: over the steady part,
	// the seconds of the step's transient cut (at 200 clients the first
	// second of 350 and a last of 488 above the rest); the bound at the
	// hold, timed over the whole stage, beside the whole stage's 430.5.
	if !strings.Contains(string(out), "438.3 (500.0, 87.7%; held 220.2 ms: 454.1, 94.8%; 2 s cut)") {
		t.Errorf("the sheet does not give virtual threads' steady part at 200 clients:\n%s", out)
	}
	// Only virtual threads fell short of the bound by more than 5 %, at
	// 200 and 400 clients (87.7 and 93.5 % over their steady parts): its
	// lines say where the milliseconds went; Tomcat's threads and
	// goroutines, within 5 %, have none.
	if n := strings.Count(string(out), "over the whole stage); each connection went round"); n != 2 ||
		!strings.Contains(string(out), "virtual threads, c200: 87.7% of the pool's bound over its steady part (86.1% over the whole stage); each connection went round in 232.3 ms for a 200 ms query: held 220.2 ms (203.2 in the database), handed over in 12.1") {
		t.Errorf("%d shortfall lines, want virtual threads' at c200 and c400 alone:\n%s", n, out)
	}
}

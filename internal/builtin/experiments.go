package builtin

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// The built-in experiments: one per seed article (../shared/seeds), as
// data, like the built-in profiles. Each expands at a scale into a run
// spec; its rows carry the seed's own figures.
func experiments() []bench.Experiment {
	return []bench.Experiment{seed000(), seed001(), seed001Service(), seed002(), seed003(), seed004(), cpuBound(), dbPool(), reactive()}
}

// scaled multiplies d by scale, to the millisecond.
func scaled(d time.Duration, scale float64) bench.Duration {
	return bench.Duration(time.Duration(float64(d) * scale).Round(time.Millisecond))
}

// millis writes a duration as a contract parameter in ms.
func millis(d bench.Duration) string { return strconv.FormatInt(d.D().Milliseconds(), 10) }

func request(name, endpoint string, params map[string]string) bench.Request {
	return bench.Request{Name: name, Endpoint: endpoint, Params: params}
}

func requestStep(r bench.Request) bench.Step { return bench.Step{Request: &r} }

func sleepStep(d bench.Duration) bench.Step { return bench.Step{Sleep: &bench.Sleep{Min: d}} }

// Seed 000 (k6): each virtual user loops heavy (500 ms), light, 100 ms of
// think time; 100 -> 300 -> 500 -> 300 -> 0 users over 9 minutes.
func seed000() bench.Experiment {
	return bench.Experiment{
		Name: "seed-000", Seed: "000", Source: "Java Virtual Thread vs Go Goroutine (k6, 2025)",
		JDK:         21, // "Virtual Thread는 JDK 21에서 정식 도입된"
		Description: "k6's loop of heavy (500 ms), light and 100 ms of think time, 100 -> 300 -> 500 -> 300 -> 0 users: Go, Java platform and Java virtual threads",
		Scale:       0.1,
		ScaleNote:   "multiplies the 9 minutes of stages (1, 2, 3, 2, 1 min); the default 0.1 runs 54 s per target",
		Layout:      bench.LayoutK6,
		Rows: []bench.SeedRow{
			{Label: "Java Platform Thread", Case: bench.TargetJavaPlatform, Seed: map[string]float64{
				bench.FigRequests: 352720, bench.FigRate: 653.05, bench.FigIterations: 176360, bench.FigRelative: 68.1, bench.FigErrorRate: 0,
				bench.FigMin: 0.11, bench.FigMean: 534.05, bench.FigMedian: 506.56, bench.FigP90: 1004.72, bench.FigP95: 1085.32, bench.FigMax: 1244.86,
				bench.FigDataReceived: 68.15, bench.FigDataSent: 28.76}},
			{Label: "Java Virtual Thread", Case: bench.TargetJavaVirtual, Seed: map[string]float64{
				bench.FigRequests: 514192, bench.FigRate: 951.56, bench.FigIterations: 257096, bench.FigRelative: 99.2, bench.FigErrorRate: 0,
				bench.FigMin: 0.09, bench.FigMean: 254.27, bench.FigMedian: 288.11, bench.FigP90: 508.00, bench.FigP95: 510.23, bench.FigMax: 569.13,
				bench.FigDataReceived: 126.07, bench.FigDataSent: 41.93}},
			{Label: "Go Goroutine", Case: bench.TargetGo, Seed: map[string]float64{
				bench.FigRequests: 518036, bench.FigRate: 959.28, bench.FigIterations: 259018, bench.FigRelative: 100, bench.FigErrorRate: 0,
				bench.FigMin: 0.05, bench.FigMean: 251.11, bench.FigMedian: 261.58, bench.FigP90: 501.67, bench.FigP95: 502.42, bench.FigMax: 537.55,
				bench.FigDataReceived: 93.24, bench.FigDataSent: 42.24}},
		},
		Ratios: []bench.TargetPair{{A: bench.TargetJavaVirtual, B: bench.TargetGo}, {A: bench.TargetJavaPlatform, B: bench.TargetGo}},
		Notes: []string{
			"k6 ramps its virtual users linearly; threadbench steps them once a second along the same line",
			"counts (requests, iterations) and data scale with the run's length: compare req/s and the ratios",
		},
		Expand: func(scale float64, _ string) bench.RunSpec {
			stages := seedStages(func(st *bench.Stage, v int) { st.Concurrency = v })
			for i := range stages {
				stages[i].Duration = scaled(stages[i].Duration.D(), scale)
			}
			return bench.RunSpec{
				Targets: []string{bench.TargetGo, bench.TargetJavaPlatform, bench.TargetJavaVirtual},
				Profile: bench.Profile{Name: "seed-000", Model: bench.ModelClosed, Scale: scale, Stages: stages},
				Workload: bench.Workload{Iteration: []bench.Step{
					requestStep(request("heavy", "heavy", map[string]string{"duration": "500"})),
					requestStep(request("light", "light", nil)),
					sleepStep(bench.Duration(100 * time.Millisecond)),
				}},
				Warmup: bench.Warmup{Duration: bench.Duration(5 * time.Second), Rate: 50},
			}
		},
	}
}

// Seed 001's fan-out: 1,000 calls of 3 s, limit 100, read timeout 5 s,
// against a Tomcat callee with 200 workers, then 400.
var (
	seed001Calls       = 1000
	seed001Limit       = 100
	seed001ServiceTime = 3 * time.Second
	seed001Timeout     = 5 * time.Second
	seed001Workers     = map[string]int{"callee-200": 200, "callee-400": 400}
)

// fanoutCase is one fan-out mode of one runtime in seed 001.
type fanoutCase struct {
	name, target, mode, label string
}

// seed001Cases start with a fan-out that warms the callee up (Tomcat grows
// its pool and compiles its path on the first calls; a cold callee failed
// a third of a pool's calls), left out of the table. Go runs first and
// each runtime's unbounded mode last: the callee goes on serving the calls
// an unbounded fan-out gave up on (they wait in Tomcat's queue), and that
// leftover work then falls in the next Java target's start-up, not in a
// measured fan-out.
var seed001Cases = []fanoutCase{
	{"callee-warm-up", bench.TargetGo, bench.ModePool, "callee warm-up"},
	{"go-pool", bench.TargetGo, bench.ModePool, "goroutine pool(100)"},
	{"go-semaphore", bench.TargetGo, bench.ModeSemaphore, "goroutines + semaphore(100)"},
	{"go-unbounded", bench.TargetGo, bench.ModeGoroutines, "goroutines (unlimited)"},
	{"java-pool", bench.TargetJavaPlatform, bench.ModePool, "ThreadPool(100)"},
	{"java-semaphore", bench.TargetJavaPlatform, bench.ModeSemaphore, "Virtual Thread + Semaphore(100)"},
	{"java-unbounded", bench.TargetJavaPlatform, bench.ModeVirtual, "Virtual Thread (unlimited)"},
}

func seed001() bench.Experiment {
	seed := func(seconds, succeeded, failed, success float64, extra map[string]float64) map[string]float64 {
		m := map[string]float64{bench.FigSeconds: seconds, bench.FigSucceeded: succeeded, bench.FigFailed: failed, bench.FigSuccess: success}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	rows := []bench.SeedRow{
		{Label: "ThreadPool(100)", Case: "java-pool", Part: "callee-200", Seed: seed(30, 1000, 0, 100,
			map[string]float64{bench.FigThreadsAdded: 100, bench.FigStacksReserved: 100, bench.FigStacksCommitted: 5})},
		{Label: "Virtual Thread (unlimited)", Case: "java-unbounded", Part: "callee-200", Seed: seed(5, 200, 800, 20, nil)},
		{Label: "Virtual Thread + Semaphore(100)", Case: "java-semaphore", Part: "callee-200", Seed: seed(30, 1000, 0, 100,
			map[string]float64{bench.FigThreadsAdded: 10, bench.FigStacksReserved: 10, bench.FigStacksCommitted: 1})},
		{Label: "ThreadPool(100)", Case: "java-pool", Part: "callee-400"},
		{Label: "Virtual Thread (unlimited)", Case: "java-unbounded", Part: "callee-400", Seed: map[string]float64{bench.FigSuccess: 40}},
		{Label: "Virtual Thread + Semaphore(100)", Case: "java-semaphore", Part: "callee-400"},
		{Label: "goroutine pool(100)", Case: "go-pool"},
		{Label: "goroutines (unlimited)", Case: "go-unbounded"},
		{Label: "goroutines + semaphore(100)", Case: "go-semaphore"},
	}
	return bench.Experiment{
		Name: "seed-001", Seed: "001", Source: "ThreadPool과 Virtual Thread의 성능 및 메모리 사용 비교 (2025)",
		JDK: 25, // "JDK 25를 도입하는 것이 가장 적합하다고 판단하여"
		Description: "one request fans out 1,000 calls to a slow callee (3 s, Tomcat with 200 then 400 workers, read timeout 5 s): " +
			"a pool of 100, unbounded, a semaphore of 100; Java and Go",
		Scale: 0.5,
		ScaleNote: "multiplies the service time (3 s) and the read timeout (5 s), so that the timeout stays under two service times; " +
			"the counts (1,000 calls, limit 100, 200 or 400 workers) stay the seed's. The default 0.5 calls for 1.5 s with a 2.5 s timeout " +
			"(shorter calls let a one-CPU Java caller's slow start of its 1,000 calls show: at 0.2 some late calls find the callee free)",
		Parts:  []string{"callee-200", "callee-400"},
		Layout: bench.LayoutFanout,
		Rows:   rows,
		Notes: []string{
			"the two callee sizes are two runs (parts): a run has one downstream service",
			"each mode runs in a fresh caller (a case), not one after the other in one JVM: its threads and memory are its own",
			"the seed's caller had 10 cores, hence +10 carriers; ours has the run's CPU limit",
			"a first case (callee-warm-up, a pool fan-out from Go) warms the callee up and is left out of this table",
		},
		Expand: expandSeed001,
	}
}

func expandSeed001(scale float64, part string) bench.RunSpec {
	workers := seed001Workers[part]
	service, timeout := scaled(seed001ServiceTime, scale), scaled(seed001Timeout, scale)
	model := FanoutModel{Calls: seed001Calls, Workers: workers, Service: service.D(), Timeout: timeout.D()}
	// idle is the baseline window before the fan-out, long enough for the
	// callee to finish the work an unbounded fan-out before it left.
	idle := max(bench.Duration(2*time.Second), bench.Duration(time.Duration(ceilDiv(model.Calls, workers))*model.Service-model.Timeout))
	_, pooled := FanoutModel{Calls: seed001Calls, Limit: seed001Limit, Mode: bench.ModePool, Workers: workers, Service: service.D(), Timeout: timeout.D()}.Expect()
	window := bench.Duration(pooled*5/4 + time.Second)
	cases := make([]bench.Case, len(seed001Cases))
	for i, fc := range seed001Cases {
		fanout := request(fc.label, "fanout", map[string]string{
			"calls": strconv.Itoa(seed001Calls), "mode": fc.mode, "limit": strconv.Itoa(seed001Limit),
			"duration": millis(service), "timeout": millis(timeout),
		})
		cases[i] = bench.Case{Name: fc.name, Target: fc.target, Workload: &bench.Workload{
			// One fan-out per case: wait out the idle window, fan out, and
			// think until the profile ends.
			Iteration: []bench.Step{sleepStep(idle), requestStep(fanout), sleepStep(bench.MaxSleep)},
			Timeout:   window + bench.Duration(10*time.Second),
		}}
	}
	return bench.RunSpec{
		Cases: cases,
		Profile: bench.Profile{Name: "seed-001", Model: bench.ModelClosed, Scale: scale, Stages: []bench.Stage{
			{Name: "idle", Duration: idle, Concurrency: 1},
			{Name: "fanout", Duration: window, Concurrency: 1},
		}},
		Warmup:     bench.Warmup{Disabled: true},
		Downstream: &bench.Downstream{Target: bench.TargetJavaPlatform, Workers: workers},
	}
}

// Seed 001's service-level attack: each request makes one call to the
// callee, through a bulkhead or not, as traffic grows.
func seed001Service() bench.Experiment {
	return bench.Experiment{
		Name: "seed-001-service", Seed: "001", Source: "ThreadPool과 Virtual Thread의 성능 및 메모리 사용 비교 (2025)",
		JDK: 25, // "JDK 25를 도입하는 것이 가장 적합하다고 판단하여"
		Description: "seed 001 as traffic grows: closed 50 -> 400 clients on /api/downstream (1 s callee, 200 workers, 1.5 s timeout); " +
			"Tomcat's 200 threads are a bulkhead, virtual threads and goroutines flood the callee, a bulkhead of 100 protects it",
		Scale:     0.6,
		ScaleNote: "multiplies the five 10 s stages (50, 100, 200, 300, 400 clients); the default 0.6 holds each 6 s",
		Layout:    bench.LayoutStages,
		Rows: []bench.SeedRow{
			{Label: "Tomcat, 200 platform threads", Case: "java-platform"},
			{Label: "virtual threads, unbounded", Case: "java-virtual"},
			{Label: "virtual threads, bulkhead(100)", Case: "java-virtual-bulkhead"},
			{Label: "goroutines, unbounded", Case: "go"},
			{Label: "goroutines, bulkhead(100)", Case: "go-bulkhead"},
		},
		Notes: []string{
			"the seed made no staged attack; this is the issue's service-level version of its fan-out",
			"a bulkhead's wait for a permit does not count against the call's timeout; its requests wait at the target instead",
		},
		Expand: func(scale float64, _ string) bench.RunSpec {
			call := func(limit string) *bench.Workload {
				params := map[string]string{"duration": "1000", "timeout": "1500"}
				if limit != "" {
					params["limit"] = limit
				}
				return &bench.Workload{Requests: []bench.Request{request("downstream", "downstream", params)}}
			}
			// Bulkheads first: each flood leaves the callee a queue of
			// abandoned calls, which the next case's warm-up absorbs.
			cases := []bench.Case{
				{Name: "java-platform", Target: bench.TargetJavaPlatform, Workload: call("")},
				{Name: "java-virtual-bulkhead", Target: bench.TargetJavaVirtual, Workload: call("100")},
				{Name: "java-virtual", Target: bench.TargetJavaVirtual, Workload: call("")},
				{Name: "go-bulkhead", Target: bench.TargetGo, Workload: call("100")},
				{Name: "go", Target: bench.TargetGo, Workload: call("")},
			}
			var stages []bench.Stage
			for _, c := range []int{50, 100, 200, 300, 400} {
				stages = append(stages, bench.Stage{Name: fmt.Sprintf("c%d", c), Duration: scaled(10*time.Second, scale), Concurrency: c})
			}
			return bench.RunSpec{
				Cases:      cases,
				Profile:    bench.Profile{Name: "seed-001-service", Model: bench.ModelClosed, Scale: scale, Stages: stages},
				Warmup:     bench.Warmup{Duration: bench.Duration(5 * time.Second), Rate: 20},
				Downstream: &bench.Downstream{Target: bench.TargetJavaPlatform, Workers: 200},
			}
		},
	}
}

// Seed 002 (nGrinder): 296 virtual users for a minute on a 1 s blocking
// endpoint, then on one that answers at once.
func seed002() bench.Experiment {
	row := func(label, name string, tps, mtt, errs float64) bench.SeedRow {
		return bench.SeedRow{Label: label, Case: name, Seed: map[string]float64{bench.FigTPS: tps, bench.FigMTT: mtt, bench.FigErrorRate: errs, bench.FigVusers: 296}}
	}
	return bench.Experiment{
		Name: "seed-002", Seed: "002",
		JDK:         21, // the seed's Spring Boot 3.2 on Java 21 Source: "Virtual Thread 알아보기 (nGrinder, Spring Boot 3.2, JDK 21)",
		SpringBoot:  "3.2",
		Description: "nGrinder: 296 virtual users for a minute on a 1 s blocking endpoint and on one that answers at once; Java platform, Java virtual, Go",
		Scale:       0.4,
		ScaleNote:   "multiplies the one-minute test; the default 0.4 holds each case 24 s",
		Layout:      bench.LayoutNGrinder,
		Rows: []bench.SeedRow{
			row("Platform Thread, 1 s blocking", "platform-blocking", 199.7, 1478.7, 0),
			row("Virtual Thread, 1 s blocking", "virtual-blocking", 290.5, 1024.7, 5.8),
			{Label: "goroutines, 1 s blocking", Case: "go-blocking"},
			row("Platform Thread, immediate", "platform-immediate", 14307.3, 12.3, 27.3),
			row("Virtual Thread, immediate", "virtual-immediate", 13584.5, 12.7, 30.7),
			{Label: "goroutines, immediate", Case: "go-immediate"},
		},
		Notes: []string{
			"the seed ran on an Apple M1 Pro with nGrinder's agent on the same machine; ours gives each target one CPU",
		},
		Expand: func(scale float64, _ string) bench.RunSpec {
			blocking := &bench.Workload{Requests: []bench.Request{request("test (1 s blocking)", "heavy", map[string]string{"duration": "1000"})}}
			immediate := &bench.Workload{Requests: []bench.Request{request("test (immediate)", "light", nil)}}
			return bench.RunSpec{
				Cases: []bench.Case{
					{Name: "platform-blocking", Target: bench.TargetJavaPlatform, Workload: blocking},
					{Name: "virtual-blocking", Target: bench.TargetJavaVirtual, Workload: blocking},
					{Name: "go-blocking", Target: bench.TargetGo, Workload: blocking},
					{Name: "platform-immediate", Target: bench.TargetJavaPlatform, Workload: immediate},
					{Name: "virtual-immediate", Target: bench.TargetJavaVirtual, Workload: immediate},
					{Name: "go-immediate", Target: bench.TargetGo, Workload: immediate},
				},
				Profile: bench.Profile{Name: "seed-002", Model: bench.ModelClosed, Scale: scale, Stages: []bench.Stage{
					{Name: "vusers296", Duration: scaled(time.Minute, scale), Concurrency: 296},
				}},
				// 1,500 requests: the immediate endpoint is CPU-bound and a
				// cold JIT served a third of what it later did; 150 in flight
				// stay within Tomcat's 200 threads on the blocking one.
				Warmup: bench.Warmup{Duration: bench.Duration(10 * time.Second), Rate: 150},
			}
		},
	}
}

// Seed 003 (Naver D2): one Tomcat thread against one carrier, 100 users on
// sleep(1000); then synchronized, the ReentrantLock the seed recommends
// instead, and native around the sleep, on JDK 21 (where synchronized pins)
// and 25 (JEP 491: it no longer does); and Go's native call on one CPU.
func seed003() bench.Experiment {
	var rows []bench.SeedRow
	for _, jdk := range []string{"21", "25"} {
		var heavyPlatform, heavyVirtual map[string]float64
		if jdk == "21" { // the seed ran JDK 21
			heavyPlatform = map[string]float64{bench.FigRequests: 23, bench.FigFails: 0, bench.FigMean: 11986, bench.FigMin: 1021, bench.FigMax: 22943, bench.FigMedian: 12000, bench.FigRate: 0.99, bench.FigFailuresPerSec: 0}
			heavyVirtual = map[string]float64{bench.FigRequests: 928, bench.FigFails: 0, bench.FigMean: 1005, bench.FigMin: 1001, bench.FigMax: 1031, bench.FigMedian: 1001, bench.FigRate: 89.19, bench.FigFailuresPerSec: 0}
		}
		rows = append(rows,
			bench.SeedRow{Label: "JDK " + jdk + " Tomcat threads.max=1, sleep", Case: "platform-1-thread@" + jdk, Seed: heavyPlatform},
			bench.SeedRow{Label: "JDK " + jdk + " virtual parallelism=1, sleep", Case: "virtual-1-carrier@" + jdk, Seed: heavyVirtual},
			bench.SeedRow{Label: "JDK " + jdk + " virtual, synchronized sleep", Case: "synchronized@" + jdk},
			bench.SeedRow{Label: "JDK " + jdk + " virtual, ReentrantLock sleep (the seed's fix)", Case: "lock@" + jdk},
			bench.SeedRow{Label: "JDK " + jdk + " virtual, native sleep", Case: "native@" + jdk},
		)
	}
	rows = append(rows, bench.SeedRow{Label: "Go, one CPU (GOMAXPROCS 1), native sleep", Case: "go-native"})
	return bench.Experiment{
		Name: "seed-003", Seed: "003", Source: "Virtual Thread의 기본 개념 이해하기 (Naver D2, JDK 21)",
		Description: "one Tomcat thread against one carrier, 100 users on a 1 s sleep; then the sleep inside synchronized, inside a ReentrantLock (the seed's fix) and as a native call; JDK 21 and 25; Go's native call on one CPU beside it",
		Scale:       1,
		ScaleNote: "multiplies the sleep (1000 ms), the users (100) and the 8 s test alike, so that one thread still serves 1 / sleep and one " +
			"unpinned carrier users / sleep = 100 req/s (the test lasts at least 4 s); e.g. 0.2: 200 ms, 20 users, 4 s (5 vs 100 req/s)",
		Layout:  bench.LayoutLocust,
		Rows:    rows,
		PinsJDK: true,
		JDK:     21,
		Notes: []string{
			"Locust stops its users at the end and leaves out the requests still waiting; threadbench waits for them up to the " +
				"request timeout (the test's length) and counts those that do not come back as failures: on one thread, the queue",
			"JFR records no jdk.VirtualThreadPinned for a thread blocked in a native call (it never tries to park): native pinning shows as throughput, not events",
		},
		Expand: expandSeed003,
	}
}

func expandSeed003(scale float64, _ string) bench.RunSpec {
	sleep := scaled(time.Second, scale)
	users := max(int(math.Round(100*scale)), 1)
	// At least 4 s: a cold JVM's first second (JIT, class loading) would
	// otherwise weigh on the carrier's figure.
	length := max(scaled(8*time.Second, scale), bench.Duration(4*time.Second))
	oneThread, oneCarrier := &bench.JavaOptions{TomcatMaxThreads: 1}, &bench.JavaOptions{VirtualParallelism: 1}
	work := func(endpoint string) *bench.Workload {
		// The timeout is the test's length: what one thread has not
		// served by then is given up, as Locust gives it up.
		return &bench.Workload{Requests: []bench.Request{request("/test ("+endpoint+")", endpoint, map[string]string{"duration": millis(sleep)})}, Timeout: length}
	}
	// Half a sleep apart (one at a time even on one thread), but no
	// slower than the slowest rate a spec may ask for.
	warmRate := max(0.5/sleep.D().Seconds(), bench.MinRate)
	var cases []bench.Case
	for _, jdk := range []string{"21", "25"} {
		cases = append(cases,
			bench.Case{Name: "platform-1-thread@" + jdk, Target: bench.TargetJavaPlatform + "@" + jdk, Java: oneThread, Workload: work("heavy")},
			bench.Case{Name: "virtual-1-carrier@" + jdk, Target: bench.TargetJavaVirtual + "@" + jdk, Java: oneCarrier, Workload: work("heavy")},
			bench.Case{Name: "synchronized@" + jdk, Target: bench.TargetJavaVirtual + "@" + jdk, Java: oneCarrier, Workload: work("synchronized")},
			bench.Case{Name: "lock@" + jdk, Target: bench.TargetJavaVirtual + "@" + jdk, Java: oneCarrier, Workload: work("lock")},
			bench.Case{Name: "native@" + jdk, Target: bench.TargetJavaVirtual + "@" + jdk, Java: oneCarrier, Workload: work("native")},
		)
	}
	// Go beside the pinned carrier: on one CPU the runtime runs one P
	// (GOMAXPROCS follows the container's CPU limit), and a goroutine
	// blocked in a system call hands that P to another thread, so the
	// native sleep does not stall the others (seed 000's point).
	cases = append(cases, bench.Case{Name: "go-native", Target: bench.TargetGo, Workload: work("native")})
	return bench.RunSpec{
		Cases: cases,
		Profile: bench.Profile{Name: "seed-003", Model: bench.ModelClosed, Scale: scale, Stages: []bench.Stage{
			{Name: fmt.Sprintf("users%d", users), Duration: length, Concurrency: users},
		}},
		// A warm-up that does not queue: three requests, one at a time,
		// so that even one Tomcat thread is idle (or nearly, from scale
		// 5 up) when the measured stage starts. It runs the endpoint's own
		// path once before 100 users arrive at once: on a cold JVM with one
		// CPU, requests that first reach a class still being initialised
		// by another wait pinned (JFR records jdk.VirtualThreadPinned on
		// JDK 25 too), and those pins are the JVM's start-up, not the
		// sleep's. The warm-up's own pins are not counted.
		Warmup: bench.Warmup{Duration: bench.Duration(time.Duration(3 / warmRate * float64(time.Second)).Round(time.Millisecond)), Rate: warmRate},
	}
}

// Seed 004 (nGrinder): 500 virtual users reached over about 10 s, 5
// minutes, on an endpoint that sleeps 300 ms twice.
func seed004() bench.Experiment {
	return bench.Experiment{
		Name: "seed-004", Seed: "004", Source: "[Java] Virtual thread 와 Platform Thread (nGrinder)",
		Description: "nGrinder: 500 virtual users reached over 10 s, 5 minutes, on an endpoint that sleeps 300 ms twice and logs a line; Java platform, Java virtual, Go",
		Scale:       0.15,
		ScaleNote:   "multiplies the 4 min 50 s hold after the 10 s ramp (which stays); the default 0.15 holds 43.5 s",
		Layout:      bench.LayoutNGrinder,
		Rows: []bench.SeedRow{
			{Label: "Platform Thread", Case: bench.TargetJavaPlatform, Seed: map[string]float64{
				bench.FigTPS: 332.0, bench.FigPeakTPS: 381, bench.FigMTT: 1483.94, bench.FigTests: 98300, bench.FigSuccessfulTests: 98300, bench.FigErrorRate: 0, bench.FigVusers: 500}},
			{Label: "Virtual Thread", Case: bench.TargetJavaVirtual, Seed: map[string]float64{
				bench.FigTPS: 820.4, bench.FigPeakTPS: 900, bench.FigMTT: 601.36, bench.FigTests: 242900, bench.FigSuccessfulTests: 242900, bench.FigErrorRate: 0, bench.FigVusers: 500}},
			{Label: "goroutines", Case: bench.TargetGo},
		},
		Notes: []string{
			"the handler as the seed wrote it: two sleeps of 300 ms, then a log line per request (/api/heavy?duration=300&times=2&log=1; Java: SLF4J on Spring Boot's default Logback console appender, Go: the log package to stderr; both to the container's log)",
		},
		Expand: func(scale float64, _ string) bench.RunSpec {
			return bench.RunSpec{
				Targets: []string{bench.TargetJavaPlatform, bench.TargetJavaVirtual, bench.TargetGo},
				Profile: bench.Profile{Name: "seed-004", Model: bench.ModelClosed, Scale: scale, Stages: []bench.Stage{
					{Name: "ramp", Duration: bench.Duration(10 * time.Second), Concurrency: 500, Ramp: true},
					{Name: "hold", Duration: scaled(290*time.Second, scale), Concurrency: 500},
				}},
				Workload: bench.Workload{Requests: []bench.Request{request("/virtual/io (sleeps 300 ms twice, logs Done)", "heavy", map[string]string{"duration": "300", "times": "2", "log": "1"})}},
				Warmup:   bench.Warmup{Duration: bench.Duration(5 * time.Second), Rate: 50},
			}
		},
	}
}

// cpuBound tests what seeds 000 and 004 claim without measuring it: that
// virtual threads bring nothing to CPU-bound work. Each runtime serves
// SHA-256 rounds on its one CPU, with fewer clients than Tomcat's 200
// threads, so that no pool but the CPU bounds anyone.
func cpuBound() bench.Experiment {
	return bench.Experiment{
		Name: "cpu-bound", Seed: "000", Source: "seeds 000 (k6, 2025) and 004 (nGrinder): \"no advantage on CPU-bound work\"",
		Description: "the seeds' claim that virtual threads bring nothing to CPU-bound work: 50 clients on /api/cpu (10,000 SHA-256 rounds), one CPU each; Java platform, Java virtual, Go",
		Scale:       1,
		ScaleNote:   "multiplies the 20 s hold; the 10 s warm-up stays",
		Layout:      bench.LayoutCPU,
		Rows: []bench.SeedRow{
			{Label: "Java platform threads", Case: bench.TargetJavaPlatform},
			{Label: "Java virtual threads", Case: bench.TargetJavaVirtual},
			{Label: "Go goroutines", Case: bench.TargetGo},
		},
		Ratios: []bench.TargetPair{{A: bench.TargetJavaVirtual, B: bench.TargetJavaPlatform}, {A: bench.TargetGo, B: bench.TargetJavaPlatform}},
		Notes: []string{
			"the seeds state the claim without a figure of their own: the sheet sets ours beside it, as throughput and as CPU per request (the cost a thread model could change)",
			"a difference in throughput is a difference in the CPU each request costs: `compare` or the run report tests it across rounds",
		},
		Expand: func(scale float64, _ string) bench.RunSpec {
			return bench.RunSpec{
				Targets: []string{bench.TargetJavaPlatform, bench.TargetJavaVirtual, bench.TargetGo},
				Profile: bench.Profile{Name: "cpu-bound", Model: bench.ModelClosed, Scale: scale, Stages: []bench.Stage{
					{Name: "hold", Duration: scaled(20*time.Second, scale), Concurrency: 50},
				}},
				Workload: bench.Workload{Requests: []bench.Request{request("cpu (10,000 rounds)", "cpu", map[string]string{"work": "10000"})}},
				// A JIT compiling SHA-256 serves a fraction of what it
				// later does: 10 s at a rate under every runtime's one CPU.
				Warmup: bench.Warmup{Duration: bench.Duration(10 * time.Second), Rate: 50},
			}
		},
	}
}

// Experiments returns the built-in experiments, in seed order.
func Experiments() []bench.Experiment { return experiments() }

// ExperimentNames returns the built-in experiments' names, in seed order.
func ExperimentNames() []string {
	exps := experiments()
	names := make([]string, len(exps))
	for i, e := range exps {
		names[i] = e.Name
	}
	return names
}

// LookupExperiment returns the named built-in experiment, or an ENOTFOUND
// *Error listing the names.
func LookupExperiment(name string) (bench.Experiment, error) {
	for _, e := range experiments() {
		if e.Name == name {
			return e, nil
		}
	}
	return bench.Experiment{}, bench.Errorf(bench.ENOTFOUND, "no built-in experiment %q (built-in experiments: %s)", name, strings.Join(ExperimentNames(), ", "))
}

package bench

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// The built-in experiments: one per seed article (../shared/seeds), as
// data, like the built-in profiles. Each expands at a scale into a run
// spec; its rows carry the seed's own figures.
func experiments() []Experiment {
	return []Experiment{seed000(), seed001(), seed001Service(), seed002(), seed003(), seed004()}
}

// scaled multiplies d by scale, to the millisecond.
func scaled(d time.Duration, scale float64) Duration {
	return Duration(time.Duration(float64(d) * scale).Round(time.Millisecond))
}

// millis writes a duration as a contract parameter in ms.
func millis(d Duration) string { return strconv.FormatInt(d.D().Milliseconds(), 10) }

func request(name, endpoint string, params map[string]string) Request {
	return Request{Name: name, Endpoint: endpoint, Params: params}
}

func requestStep(r Request) Step { return Step{Request: &r} }

func sleepStep(d Duration) Step { return Step{Sleep: &Sleep{Min: d}} }

// Seed 000 (k6): each virtual user loops heavy (500 ms), light, 100 ms of
// think time; 100 -> 300 -> 500 -> 300 -> 0 users over 9 minutes.
func seed000() Experiment {
	return Experiment{
		Name: "seed-000", Seed: "000", Source: "Java Virtual Thread vs Go Goroutine (k6, 2025)",
		Description: "k6's loop of heavy (500 ms), light and 100 ms of think time, 100 -> 300 -> 500 -> 300 -> 0 users: Go, Java platform and Java virtual threads",
		Scale:       0.1,
		ScaleNote:   "multiplies the 9 minutes of stages (1, 2, 3, 2, 1 min); the default 0.1 runs 54 s per target",
		Layout:      LayoutK6,
		Rows: []SeedRow{
			{Label: "Java Platform Thread", Case: TargetJavaPlatform, Seed: map[string]float64{
				FigRequests: 352720, FigRate: 653.05, FigIterations: 176360, FigRelative: 68.1, FigErrorRate: 0,
				FigMin: 0.11, FigMean: 534.05, FigMedian: 506.56, FigP90: 1004.72, FigP95: 1085.32, FigMax: 1244.86}},
			{Label: "Java Virtual Thread", Case: TargetJavaVirtual, Seed: map[string]float64{
				FigRequests: 514192, FigRate: 951.56, FigIterations: 257096, FigRelative: 99.2, FigErrorRate: 0,
				FigMin: 0.09, FigMean: 254.27, FigMedian: 288.11, FigP90: 508.00, FigP95: 510.23, FigMax: 569.13}},
			{Label: "Go Goroutine", Case: TargetGo, Seed: map[string]float64{
				FigRequests: 518036, FigRate: 959.28, FigIterations: 259018, FigRelative: 100, FigErrorRate: 0,
				FigMin: 0.05, FigMean: 251.11, FigMedian: 261.58, FigP90: 501.67, FigP95: 502.42, FigMax: 537.55}},
		},
		Ratios: []TargetPair{{A: TargetJavaVirtual, B: TargetGo}, {A: TargetJavaPlatform, B: TargetGo}},
		Notes: []string{
			"k6 ramps its virtual users linearly; threadbench steps them once a second along the same line",
			"counts (requests, iterations) scale with the run's length: compare req/s and the ratios",
		},
		expand: func(scale float64, _ string) RunSpec {
			stages := seedStages(func(st *Stage, v int) { st.Concurrency = v })
			for i := range stages {
				stages[i].Duration = scaled(stages[i].Duration.D(), scale)
			}
			return RunSpec{
				Targets: []string{TargetGo, TargetJavaPlatform, TargetJavaVirtual},
				Profile: Profile{Name: "seed-000", Model: ModelClosed, Scale: scale, Stages: stages},
				Workload: Workload{Iteration: []Step{
					requestStep(request("heavy", "heavy", map[string]string{"duration": "500"})),
					requestStep(request("light", "light", nil)),
					sleepStep(Duration(100 * time.Millisecond)),
				}},
				Warmup: Warmup{Duration: Duration(5 * time.Second), Rate: 50},
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
	{"callee-warm-up", TargetGo, ModePool, "callee warm-up"},
	{"go-pool", TargetGo, ModePool, "goroutine pool(100)"},
	{"go-semaphore", TargetGo, ModeSemaphore, "goroutines + semaphore(100)"},
	{"go-unbounded", TargetGo, ModeGoroutines, "goroutines (unlimited)"},
	{"java-pool", TargetJavaPlatform, ModePool, "ThreadPool(100)"},
	{"java-semaphore", TargetJavaPlatform, ModeSemaphore, "Virtual Thread + Semaphore(100)"},
	{"java-unbounded", TargetJavaPlatform, ModeVirtual, "Virtual Thread (unlimited)"},
}

func seed001() Experiment {
	seed := func(seconds, succeeded, failed, success float64, extra map[string]float64) map[string]float64 {
		m := map[string]float64{FigSeconds: seconds, FigSucceeded: succeeded, FigFailed: failed, FigSuccess: success}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	rows := []SeedRow{
		{Label: "ThreadPool(100)", Case: "java-pool", Part: "callee-200", Seed: seed(30, 1000, 0, 100,
			map[string]float64{FigThreadsAdded: 100, FigStacksReserved: 100, FigStacksCommitted: 5})},
		{Label: "Virtual Thread (unlimited)", Case: "java-unbounded", Part: "callee-200", Seed: seed(5, 200, 800, 20, nil)},
		{Label: "Virtual Thread + Semaphore(100)", Case: "java-semaphore", Part: "callee-200", Seed: seed(30, 1000, 0, 100,
			map[string]float64{FigThreadsAdded: 10, FigStacksReserved: 10, FigStacksCommitted: 1})},
		{Label: "ThreadPool(100)", Case: "java-pool", Part: "callee-400"},
		{Label: "Virtual Thread (unlimited)", Case: "java-unbounded", Part: "callee-400", Seed: map[string]float64{FigSuccess: 40}},
		{Label: "Virtual Thread + Semaphore(100)", Case: "java-semaphore", Part: "callee-400"},
		{Label: "goroutine pool(100)", Case: "go-pool"},
		{Label: "goroutines (unlimited)", Case: "go-unbounded"},
		{Label: "goroutines + semaphore(100)", Case: "go-semaphore"},
	}
	return Experiment{
		Name: "seed-001", Seed: "001", Source: "ThreadPool과 Virtual Thread의 성능 및 메모리 사용 비교 (2025)",
		Description: "one request fans out 1,000 calls to a slow callee (3 s, Tomcat with 200 then 400 workers, read timeout 5 s): " +
			"a pool of 100, unbounded, a semaphore of 100; Java and Go",
		Scale: 0.5,
		ScaleNote: "multiplies the service time (3 s) and the read timeout (5 s), so that the timeout stays under two service times; " +
			"the counts (1,000 calls, limit 100, 200 or 400 workers) stay the seed's. The default 0.5 calls for 1.5 s with a 2.5 s timeout " +
			"(shorter calls let a one-CPU Java caller's slow start of its 1,000 calls show: at 0.2 some late calls find the callee free)",
		Parts:  []string{"callee-200", "callee-400"},
		Layout: LayoutFanout,
		Rows:   rows,
		Notes: []string{
			"the two callee sizes are two runs (parts): a run has one downstream service",
			"each mode runs in a fresh caller (a case), not one after the other in one JVM: its threads and memory are its own",
			"the seed's caller had 10 cores, hence +10 carriers; ours has the run's CPU limit",
			"a first case (callee-warm-up, a pool fan-out from Go) warms the callee up and is left out of this table",
		},
		expand: expandSeed001,
	}
}

func expandSeed001(scale float64, part string) RunSpec {
	workers := seed001Workers[part]
	service, timeout := scaled(seed001ServiceTime, scale), scaled(seed001Timeout, scale)
	model := FanoutModel{Calls: seed001Calls, Workers: workers, Service: service.D(), Timeout: timeout.D()}
	// idle is the baseline window before the fan-out, long enough for the
	// callee to finish the work an unbounded fan-out before it left.
	idle := max(Duration(2*time.Second), Duration(time.Duration(ceilDiv(model.Calls, workers))*model.Service-model.Timeout))
	_, pooled := FanoutModel{Calls: seed001Calls, Limit: seed001Limit, Mode: ModePool, Workers: workers, Service: service.D(), Timeout: timeout.D()}.Expect()
	window := Duration(pooled*5/4 + time.Second)
	cases := make([]Case, len(seed001Cases))
	for i, fc := range seed001Cases {
		fanout := request(fc.label, "fanout", map[string]string{
			"calls": strconv.Itoa(seed001Calls), "mode": fc.mode, "limit": strconv.Itoa(seed001Limit),
			"duration": millis(service), "timeout": millis(timeout),
		})
		cases[i] = Case{Name: fc.name, Target: fc.target, Workload: &Workload{
			// One fan-out per case: wait out the idle window, fan out, and
			// think until the profile ends.
			Iteration: []Step{sleepStep(idle), requestStep(fanout), sleepStep(MaxSleep)},
			Timeout:   window + Duration(10*time.Second),
		}}
	}
	return RunSpec{
		Cases: cases,
		Profile: Profile{Name: "seed-001", Model: ModelClosed, Scale: scale, Stages: []Stage{
			{Name: "idle", Duration: idle, Concurrency: 1},
			{Name: "fanout", Duration: window, Concurrency: 1},
		}},
		Warmup:     Warmup{Disabled: true},
		Downstream: &Downstream{Target: TargetJavaPlatform, Workers: workers},
	}
}

// Seed 001's service-level attack: each request makes one call to the
// callee, through a bulkhead or not, as traffic grows.
func seed001Service() Experiment {
	return Experiment{
		Name: "seed-001-service", Seed: "001", Source: "ThreadPool과 Virtual Thread의 성능 및 메모리 사용 비교 (2025)",
		Description: "seed 001 as traffic grows: closed 50 -> 400 clients on /api/downstream (1 s callee, 200 workers, 1.5 s timeout); " +
			"Tomcat's 200 threads are a bulkhead, virtual threads and goroutines flood the callee, a bulkhead of 100 protects it",
		Scale:     0.6,
		ScaleNote: "multiplies the five 10 s stages (50, 100, 200, 300, 400 clients); the default 0.6 holds each 6 s",
		Layout:    LayoutStages,
		Rows: []SeedRow{
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
		expand: func(scale float64, _ string) RunSpec {
			call := func(limit string) *Workload {
				params := map[string]string{"duration": "1000", "timeout": "1500"}
				if limit != "" {
					params["limit"] = limit
				}
				return &Workload{Requests: []Request{request("downstream", "downstream", params)}}
			}
			// Bulkheads first: each flood leaves the callee a queue of
			// abandoned calls, which the next case's warm-up absorbs.
			cases := []Case{
				{Name: "java-platform", Target: TargetJavaPlatform, Workload: call("")},
				{Name: "java-virtual-bulkhead", Target: TargetJavaVirtual, Workload: call("100")},
				{Name: "java-virtual", Target: TargetJavaVirtual, Workload: call("")},
				{Name: "go-bulkhead", Target: TargetGo, Workload: call("100")},
				{Name: "go", Target: TargetGo, Workload: call("")},
			}
			var stages []Stage
			for _, c := range []int{50, 100, 200, 300, 400} {
				stages = append(stages, Stage{Name: fmt.Sprintf("c%d", c), Duration: scaled(10*time.Second, scale), Concurrency: c})
			}
			return RunSpec{
				Cases:      cases,
				Profile:    Profile{Name: "seed-001-service", Model: ModelClosed, Scale: scale, Stages: stages},
				Warmup:     Warmup{Duration: Duration(5 * time.Second), Rate: 20},
				Downstream: &Downstream{Target: TargetJavaPlatform, Workers: 200},
			}
		},
	}
}

// Seed 002 (nGrinder): 296 virtual users for a minute on a 1 s blocking
// endpoint, then on one that answers at once.
func seed002() Experiment {
	row := func(label, name string, tps, mtt, errs float64) SeedRow {
		return SeedRow{Label: label, Case: name, Seed: map[string]float64{FigTPS: tps, FigMTT: mtt, FigErrorRate: errs, FigVusers: 296}}
	}
	return Experiment{
		Name: "seed-002", Seed: "002", Source: "Virtual Thread 알아보기 (nGrinder, Spring Boot 3.2, JDK 21)",
		Description: "nGrinder: 296 virtual users for a minute on a 1 s blocking endpoint and on one that answers at once; Java platform, Java virtual, Go",
		Scale:       0.4,
		ScaleNote:   "multiplies the one-minute test; the default 0.4 holds each case 24 s",
		Layout:      LayoutNGrinder,
		Rows: []SeedRow{
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
		expand: func(scale float64, _ string) RunSpec {
			blocking := &Workload{Requests: []Request{request("test (1 s blocking)", "heavy", map[string]string{"duration": "1000"})}}
			immediate := &Workload{Requests: []Request{request("test (immediate)", "light", nil)}}
			return RunSpec{
				Cases: []Case{
					{Name: "platform-blocking", Target: TargetJavaPlatform, Workload: blocking},
					{Name: "virtual-blocking", Target: TargetJavaVirtual, Workload: blocking},
					{Name: "go-blocking", Target: TargetGo, Workload: blocking},
					{Name: "platform-immediate", Target: TargetJavaPlatform, Workload: immediate},
					{Name: "virtual-immediate", Target: TargetJavaVirtual, Workload: immediate},
					{Name: "go-immediate", Target: TargetGo, Workload: immediate},
				},
				Profile: Profile{Name: "seed-002", Model: ModelClosed, Scale: scale, Stages: []Stage{
					{Name: "vusers296", Duration: scaled(time.Minute, scale), Concurrency: 296},
				}},
				// 1,500 requests: the immediate endpoint is CPU-bound and a
				// cold JIT served a third of what it later did; 150 in flight
				// stay within Tomcat's 200 threads on the blocking one.
				Warmup: Warmup{Duration: Duration(10 * time.Second), Rate: 150},
			}
		},
	}
}

// Seed 003 (Naver D2): one Tomcat thread against one carrier, 100 users on
// sleep(1000); then synchronized and native around the sleep, on JDK 21
// (where synchronized pins) and 25 (JEP 491: it no longer does).
func seed003() Experiment {
	var rows []SeedRow
	for _, jdk := range []string{"21", "25"} {
		var heavyPlatform, heavyVirtual map[string]float64
		if jdk == "21" { // the seed ran JDK 21
			heavyPlatform = map[string]float64{FigRequests: 23, FigFails: 0, FigMean: 11986, FigMin: 1021, FigMax: 22943, FigMedian: 12000, FigRate: 0.99, FigFailuresPerSec: 0}
			heavyVirtual = map[string]float64{FigRequests: 928, FigFails: 0, FigMean: 1005, FigMin: 1001, FigMax: 1031, FigMedian: 1001, FigRate: 89.19, FigFailuresPerSec: 0}
		}
		rows = append(rows,
			SeedRow{Label: "JDK " + jdk + " Tomcat threads.max=1, sleep", Case: "platform-1-thread@" + jdk, Seed: heavyPlatform},
			SeedRow{Label: "JDK " + jdk + " virtual parallelism=1, sleep", Case: "virtual-1-carrier@" + jdk, Seed: heavyVirtual},
			SeedRow{Label: "JDK " + jdk + " virtual, synchronized sleep", Case: "synchronized@" + jdk},
			SeedRow{Label: "JDK " + jdk + " virtual, native sleep", Case: "native@" + jdk},
		)
	}
	return Experiment{
		Name: "seed-003", Seed: "003", Source: "Virtual Thread의 기본 개념 이해하기 (Naver D2, JDK 21)",
		Description: "one Tomcat thread against one carrier, 100 users on a 1 s sleep; then the sleep inside synchronized and as a native call; JDK 21 and 25",
		Scale:       1,
		ScaleNote: "multiplies the sleep (1000 ms), the users (100) and the 8 s test alike, so that one thread still serves 1 / sleep and one " +
			"unpinned carrier users / sleep = 100 req/s (the test lasts at least 4 s); e.g. 0.2: 200 ms, 20 users, 4 s (5 vs 100 req/s)",
		Layout: LayoutLocust,
		Rows:   rows,
		Notes: []string{
			"Locust stops its users at the end and leaves out the requests still waiting; threadbench waits for them up to the " +
				"request timeout (the test's length) and counts those that do not come back as failures: on one thread, the queue",
			"JFR records no jdk.VirtualThreadPinned for a thread blocked in a native call (it never tries to park): native pinning shows as throughput, not events",
		},
		expand: expandSeed003,
	}
}

func expandSeed003(scale float64, _ string) RunSpec {
	sleep := scaled(time.Second, scale)
	users := max(int(math.Round(100*scale)), 1)
	// At least 4 s: a cold JVM's first second (JIT, class loading) would
	// otherwise weigh on the carrier's figure.
	length := max(scaled(8*time.Second, scale), Duration(4*time.Second))
	oneThread, oneCarrier := &JavaOptions{TomcatMaxThreads: 1}, &JavaOptions{VirtualParallelism: 1}
	work := func(endpoint string) *Workload {
		// The timeout is the test's length: what one thread has not
		// served by then is given up, as Locust gives it up.
		return &Workload{Requests: []Request{request("/test ("+endpoint+")", endpoint, map[string]string{"duration": millis(sleep)})}, Timeout: length}
	}
	// Half a sleep apart (one at a time even on one thread), but no
	// slower than the slowest rate a spec may ask for.
	warmRate := max(0.5/sleep.D().Seconds(), MinRate)
	var cases []Case
	for _, jdk := range []string{"21", "25"} {
		cases = append(cases,
			Case{Name: "platform-1-thread@" + jdk, Target: TargetJavaPlatform + "@" + jdk, Java: oneThread, Workload: work("heavy")},
			Case{Name: "virtual-1-carrier@" + jdk, Target: TargetJavaVirtual + "@" + jdk, Java: oneCarrier, Workload: work("heavy")},
			Case{Name: "synchronized@" + jdk, Target: TargetJavaVirtual + "@" + jdk, Java: oneCarrier, Workload: work("synchronized")},
			Case{Name: "native@" + jdk, Target: TargetJavaVirtual + "@" + jdk, Java: oneCarrier, Workload: work("native")},
		)
	}
	return RunSpec{
		Cases: cases,
		Profile: Profile{Name: "seed-003", Model: ModelClosed, Scale: scale, Stages: []Stage{
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
		Warmup: Warmup{Duration: Duration(time.Duration(3 / warmRate * float64(time.Second)).Round(time.Millisecond)), Rate: warmRate},
	}
}

// Seed 004 (nGrinder): 500 virtual users reached over about 10 s, 5
// minutes, on an endpoint that sleeps 300 ms twice.
func seed004() Experiment {
	return Experiment{
		Name: "seed-004", Seed: "004", Source: "[Java] Virtual thread 와 Platform Thread (nGrinder)",
		Description: "nGrinder: 500 virtual users reached over 10 s, 5 minutes, on an endpoint that sleeps 300 ms twice; Java platform, Java virtual, Go",
		Scale:       0.15,
		ScaleNote:   "multiplies the 4 min 50 s hold after the 10 s ramp (which stays); the default 0.15 holds 43.5 s",
		Layout:      LayoutNGrinder,
		Rows: []SeedRow{
			{Label: "Platform Thread", Case: TargetJavaPlatform, Seed: map[string]float64{
				FigTPS: 332.0, FigPeakTPS: 381, FigMTT: 1483.94, FigTests: 98300, FigSuccessfulTests: 98300, FigErrorRate: 0, FigVusers: 500}},
			{Label: "Virtual Thread", Case: TargetJavaVirtual, Seed: map[string]float64{
				FigTPS: 820.4, FigPeakTPS: 900, FigMTT: 601.36, FigTests: 242900, FigSuccessfulTests: 242900, FigErrorRate: 0, FigVusers: 500}},
			{Label: "goroutines", Case: TargetGo},
		},
		Notes: []string{
			"the seed's test is one request whose handler sleeps 300 ms twice (MTT 601 ms); ours is one request sleeping 600 ms once: the same time blocked, one park instead of two",
		},
		expand: func(scale float64, _ string) RunSpec {
			return RunSpec{
				Targets: []string{TargetJavaPlatform, TargetJavaVirtual, TargetGo},
				Profile: Profile{Name: "seed-004", Model: ModelClosed, Scale: scale, Stages: []Stage{
					{Name: "ramp", Duration: Duration(10 * time.Second), Concurrency: 500, Ramp: true},
					{Name: "hold", Duration: scaled(290*time.Second, scale), Concurrency: 500},
				}},
				Workload: Workload{Requests: []Request{request("/virtual/io (sleeps 600 ms)", "heavy", map[string]string{"duration": "600"})}},
				Warmup:   Warmup{Duration: Duration(5 * time.Second), Rate: 50},
			}
		},
	}
}

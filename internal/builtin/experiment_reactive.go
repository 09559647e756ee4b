package builtin

import (
	"fmt"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// reactiveClients are the reactive experiment's stages, in clients: below
// Tomcat's 200 threads, at them and twice them.
var reactiveClients = []int{50, 200, 400}

// reactiveRequests are the reactive experiment's parts: a wait, nothing,
// and a call to a downstream service. 200 ms: 400 clients then ask for
// 2,000 req/s of a model that holds no thread while it waits, where
// Tomcat's 200 threads serve 1,000.
var reactiveRequests = map[string]bench.Request{
	"heavy": request("heavy (a 200 ms wait)", "heavy", map[string]string{"duration": "200"}),
	"light": request("light (answers at once)", "light", nil),
	"downstream": request("downstream (a 200 ms call)", "downstream",
		map[string]string{"duration": "200", "timeout": "1500"}),
}

// reactive sets the stack seeds 003 and 004 left beside the thread
// models they went to: WebFlux on Reactor Netty, Tomcat's platform
// threads, virtual threads, and goroutines, on the same endpoints.
func reactive() bench.Experiment {
	return bench.Experiment{
		Name: "reactive", Seed: "004",
		Source: "WebFlux to Spring MVC on virtual threads, \"keeping the performance\" (seed 004; seed 003: \"as efficient as Netty/WebFlux on network I/O\")",
		Description: "Spring WebFlux on Reactor Netty beside Tomcat's 200 platform threads, virtual threads and goroutines, " +
			"on a 200 ms wait (heavy), on nothing (light) and on a 200 ms downstream call, at 50, 200 and 400 clients, one CPU each",
		Scale:     0.6,
		ScaleNote: "multiplies the three 10 s stages (50, 200, 400 clients); the default 0.6 holds each 6 s",
		Parts:     []string{"heavy", "light", "downstream"},
		Layout:    bench.LayoutReactive,
		Rows: []bench.SeedRow{
			{Label: "Tomcat, 200 platform threads", Case: bench.TargetJavaPlatform},
			{Label: "virtual threads", Case: bench.TargetJavaVirtual},
			{Label: "WebFlux on Reactor Netty", Case: bench.TargetJavaReactive},
			{Label: "goroutines", Case: bench.TargetGo},
		},
		Notes: []string{
			"no seed measured WebFlux: they state the claim, the sheet sets ours beside it",
			"WebFlux waits as its users do: heavy is a Mono.delay and the downstream call non-blocking (WebClient on Reactor Netty), " +
				"so neither holds a thread; blocking work (native, synchronized, lock, db, fanout) runs on Reactor's bounded elastic pool",
			"the three endpoints are three runs (parts): a run has one workload per target; the downstream part calls a Go callee with 10,000 workers, more than the 400 calls ever in flight, so that the callee is not the bound",
		},
		Expand: expandReactive,
	}
}

func expandReactive(scale float64, part string) bench.RunSpec {
	var stages []bench.Stage
	for _, c := range reactiveClients {
		stages = append(stages, bench.Stage{Name: fmt.Sprintf("c%d", c), Duration: scaled(10*time.Second, scale), Concurrency: c})
	}
	spec := bench.RunSpec{
		Targets:  []string{bench.TargetJavaPlatform, bench.TargetJavaVirtual, bench.TargetJavaReactive, bench.TargetGo},
		Profile:  bench.Profile{Name: "reactive", Model: bench.ModelClosed, Scale: scale, Stages: stages},
		Workload: bench.Workload{Requests: []bench.Request{reactiveRequests[part]}},
		// Until steady, its JIT quiet, at the first stage's 50 clients:
		// after a fixed 10 s at 100 req/s the JVMs were still compiling
		// (virtual threads' heavy 1,319 req/s at 400 clients, 71 % of
		// WebFlux's; warmed until steady in the demo's profile, 94 %), and
		// WebFlux's light part held a few connections for seconds (p99
		// 6.3 s) while its JIT compiled.
		Warmup: bench.Warmup{UntilSteady: true},
	}
	if part == "downstream" {
		// 10,000 workers: more than the 400 calls ever in flight, so
		// the callee is never the bound.
		spec.Downstream = &bench.Downstream{Target: bench.TargetGo, Workers: 10000}
	}
	return spec
}

// reactiveTable writes, per part, each case's throughput, p99 and peak
// OS threads per stage, then the seeds' claim beside ours at the last
// stage: virtual threads' throughput as a share of WebFlux's.
func (x *expTable) reactiveTable() {
	header, tables := x.perStage(
		func(t *bench.TargetResult, i int) string { return expRate(t.Stages[i].Stats.Throughput) },
		func(t *bench.TargetResult, i int) string { return expMs(t.Stages[i].Stats.Latency.P99) },
		func(t *bench.TargetResult, i int) string {
			return units.OrDash(expThreads(expStageResources(t, t.Stages[i].Index).Threads[bench.ThreadPlatform].Peak))
		},
		func(t *bench.TargetResult, i int) string { return expPercent(expErrorPercent(t.Stages[i].Stats)) })
	x.table("throughput per stage (successful req/s)", header, tables[0])
	x.table("p99 per stage (ms)", header, tables[1])
	x.table("peak OS threads per stage", header, tables[2])
	x.table("error rate per stage", header, tables[3])
	virtual, _ := x.measured(bench.SeedRow{Case: bench.TargetJavaVirtual})
	webflux, _ := x.measured(bench.SeedRow{Case: bench.TargetJavaReactive})
	if virtual == nil || webflux == nil || len(virtual.Stages) == 0 || len(webflux.Stages) == 0 {
		return
	}
	v, w := virtual.Stages[len(virtual.Stages)-1], webflux.Stages[len(webflux.Stages)-1]
	if w.Stats.Throughput <= 0 {
		return
	}
	x.sheet.Parts = append(x.sheet.Parts, SheetPart{Apart: true, Line: fmt.Sprintf("the seeds' claim: virtual threads keep WebFlux's performance on I/O; ours, at the last stage: virtual threads %s req/s (p99 %s ms), %s of WebFlux's %s req/s (p99 %s ms)",
		expRate(v.Stats.Throughput), expMs(v.Stats.Latency.P99), expPercent(100*v.Stats.Throughput/w.Stats.Throughput),
		expRate(w.Stats.Throughput), expMs(w.Stats.Latency.P99))})
}

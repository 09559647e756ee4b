package scalability_test

import (
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/scalability"
)

func sweepStages(sigma, kappa, lambda float64, clients ...int) []bench.StageResult {
	var stages []bench.StageResult
	for i, n := range clients {
		stages = append(stages, bench.StageResult{Index: i, Model: bench.ModelClosed, Concurrency: n,
			Stats: bench.Stats{Throughput: uslAt(sigma, kappa, lambda, float64(n))}})
	}
	return stages
}

func TestFitRun(t *testing.T) {
	run := &bench.Run{Spec: bench.RunSpec{Profile: bench.Profile{Model: bench.ModelClosed}}, Targets: []bench.TargetResult{
		{Target: "java-platform", Stages: sweepStages(0.05, 0.0002, 10, 25, 50, 100, 200, 400, 800)},
		{Target: "go", Stages: sweepStages(0, 0, 10, 25, 50, 100, 200, 400, 800)},
		// too few steps to fit: left out, not an error
		{Target: "java-virtual", Stages: sweepStages(0.05, 0.0002, 10, 25, 50, 100)},
	}}
	fits := scalability.FitRun(run)
	if len(fits) != 2 {
		t.Fatalf("%d fits, want 2: %+v", len(fits), fits)
	}
	if jp := fits[0]; jp.Target != "java-platform" || jp.Points != 6 || !within(jp.Peak, 68.9, 0.01) || jp.Poor != "" ||
		!strings.Contains(jp.Sentence, "peaks at N* 69 clients") {
		t.Errorf("java-platform %+v", jp)
	}
	// linear: no peak, no maximum, both written as 0 for JSON
	if g := fits[1]; g.Peak != 0 || g.MaxThroughput != 0 || !strings.Contains(g.Sentence, "scales linearly") {
		t.Errorf("go %+v", g)
	}
	// A fit whose maximum passes the target's thread pool's bound says so:
	// 10 threads ÷ 0.1 s = 100 req/s, far under the fitted maximum.
	run.Spec.Workload = bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Params: map[string]string{"duration": "100"}}}}
	run.Targets[0].Settings = map[string]string{"javaThreadModel": "platform", "tomcatMaxThreads": "10"}
	if jp := scalability.FitRun(run)[0]; !strings.Contains(jp.Sentence, "above its 10-thread pool's 100 req/s, which it cannot pass") {
		t.Errorf("sentence %q says nothing of the pool", jp.Sentence)
	}
	run.Targets[0].Settings["tomcatMaxThreads"] = "1000"
	if jp := scalability.FitRun(run)[0]; strings.Contains(jp.Sentence, "pool") {
		t.Errorf("sentence %q names a pool the fit stays under", jp.Sentence)
	}
	run.Spec.Profile.Model = bench.ModelOpen
	if fits := scalability.FitRun(run); fits != nil {
		t.Errorf("an open-model run has fits %+v", fits)
	}
}

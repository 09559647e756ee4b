package analysis_test

import (
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
)

func TestCapacityTable(t *testing.T) {
	confirmed := func(served ...float64) []bench.CapacityTrial {
		var c []bench.CapacityTrial
		for _, s := range served {
			c = append(c, bench.CapacityTrial{Phase: "confirm", Rate: 980, Throughput: s})
		}
		return c
	}
	heavy := bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Params: map[string]string{"duration": "200"}}}}
	platform := map[string]string{"javaThreadModel": "platform", "tomcatMaxThreads": "200"}
	run := &bench.Run{Spec: bench.RunSpec{Workload: heavy}, Targets: []bench.TargetResult{
		{Target: "java-platform", Settings: platform, Capacity: &bench.CapacityResult{Objective: "p99<=300ms", Rate: 980, Stop: "precision",
			Confirmations: confirmed(979, 975, 982),
			Failed:        &bench.CapacityTrial{Rate: 1000, Violations: []string{"p99 412ms > 300ms"}}}},
		{Target: "go", Capacity: &bench.CapacityResult{Objective: "p99<=300ms", Rate: 1960, Stop: "budget",
			Reason:        "the time budget (1m40s) ended the bisection at a bracket 3.0% wide (asked 2.0%)",
			Confirmations: []bench.CapacityTrial{{Throughput: 1950}}, Failed: &bench.CapacityTrial{Rate: 2020, Violations: []string{"errors 2% > 0.1%"}}}},
		{Target: "java-virtual", Capacity: &bench.CapacityResult{Objective: "p99<=300ms", Stop: "generator-bound",
			Reason: "the load generator is the limit at 3200 req/s (generator CPU 97% of its 1 CPU(s)), not the target"}},
		// a target that failed before its search has no row
		{Target: "other", Status: bench.TargetFailed},
	}}
	tab := analysis.CapacityTable(run)
	if tab == nil || tab.Objective != "p99<=300ms" || len(tab.Rows) != 3 {
		t.Fatalf("table %+v", tab)
	}
	jp := tab.Rows[0]
	if jp.ServedLow != 975 || jp.ServedHigh != 982 || jp.FailedRate != 1000 || jp.FailedWhy != "p99 412ms > 300ms" || jp.Ratio != 0.5 ||
		jp.PoolThreads != 200 || jp.PoolRate != 1000 || tab.Rows[1].PoolRate != 0 {
		t.Errorf("java-platform row %+v", jp)
	}
	if tab.Rows[1].Ratio != 1 || tab.Rows[2].Ratio != 0 {
		t.Errorf("ratios %.2f %.2f, want 1 for the best and 0 without an answer", tab.Rows[1].Ratio, tab.Rows[2].Ratio)
	}
	for i, want := range []string{
		"java-platform carries 980 req/s within p99<=300ms (confirmations served 975–982 req/s), bounded by its 200-thread pool (1000 allowed); 1000 req/s failed: p99 412ms > 300ms.",
		"go carries 1960 req/s within p99<=300ms (confirmations served 1950–1950 req/s); 2020 req/s failed: errors 2% > 0.1%; the time budget (1m40s) ended",
		"java-virtual: no rate confirmed within p99<=300ms; the load generator is the limit at 3200 req/s",
	} {
		if !strings.HasPrefix(tab.Sentences[i], want) {
			t.Errorf("sentence %d:\n%s\nwant it to start\n%s", i, tab.Sentences[i], want)
		}
	}
	// Well below its pool's bound, the pool is named but not blamed.
	run.Targets[0].Capacity.Rate = 500
	if s := analysis.CapacityTable(run).Sentences[0]; !strings.Contains(s, "500 req/s within p99<=300ms (confirmations served 975–982 req/s), below its 200-thread pool's bound (1000 allowed)") {
		t.Errorf("sentence %q", s)
	}
	if analysis.CapacityTable(&bench.Run{Targets: []bench.TargetResult{{Target: "go"}}}) != nil {
		t.Error("a run without a search has a capacity table")
	}
}

// A target whose confirmations used its CPU up is said to be bounded by
// it, from the CPU seconds its metrics recorded in each; one that did not,
// or whose CPU was not recorded, is not.
func TestTableCPUBound(t *testing.T) {
	confirm := func(index int, successes int64) bench.StageResult {
		return bench.StageResult{Index: index, Duration: bench.Duration(10e9), Rate: 1550, Stats: bench.Stats{Successes: successes}}
	}
	tr := bench.TargetResult{Target: "go", Limits: bench.Limits{CPUs: 1},
		Stages: []bench.StageResult{{Index: 0, Duration: bench.Duration(3e9)}, confirm(1, 15500), confirm(2, 15400)},
		Resources: []bench.StageResources{{Stage: -1, Warmup: true, CPUSecondsPer1k: 9},
			{Stage: 0, CPUSecondsPer1k: 0.1}, {Stage: 1, CPUSecondsPer1k: 0.62}, {Stage: 2, CPUSecondsPer1k: 0.62}},
		Capacity: &bench.CapacityResult{Objective: "p99<=300ms", Rate: 1550, Stop: "precision",
			Confirmations: []bench.CapacityTrial{{Stage: 1, Throughput: 1550}, {Stage: 2, Throughput: 1540}},
			Failed:        &bench.CapacityTrial{Rate: 1600, Violations: []string{"p99 900ms > 300ms"}}}}
	run := &bench.Run{Targets: []bench.TargetResult{tr}}
	row := analysis.CapacityTable(run).Rows[0]
	// (0.62 s × 15.5 + 0.62 s × 15.4) ÷ 10 s ÷ 1 CPU ÷ 2 confirmations
	if want := 0.62 * (15.5 + 15.4) / 10 / 2; row.CPUs != 1 || row.CPUShare < want-1e-9 || row.CPUShare > want+1e-9 {
		t.Errorf("CPU share %v of %v CPUs, want %v of 1", row.CPUShare, row.CPUs, want)
	}
	if s := analysis.CapacityTable(run).Sentences[0]; !strings.Contains(s, "(confirmations served 1540–1550 req/s), bounded by its CPU (96 % of its 1 CPU in the confirmations); 1600 req/s failed") {
		t.Errorf("sentence %q", s)
	}
	run.Targets[0].Resources[2].CPUSecondsPer1k, run.Targets[0].Resources[3].CPUSecondsPer1k = 0.3, 0.3
	if s := analysis.CapacityTable(run).Sentences[0]; strings.Contains(s, "CPU") {
		t.Errorf("a target at half its CPU is said to be bound by it: %q", s)
	}
	run.Targets[0].Limits.CPUs = 0
	if row := analysis.CapacityTable(run).Rows[0]; row.CPUShare != 0 || row.CPUs != 0 {
		t.Errorf("without a CPU limit, row %+v has a CPU share", row)
	}
}

// An answer a majority of whose confirmations passed says how many did of
// how many ran and were asked, and what failed in the others; an old
// run's confirmations (no verdict kept) all passed.
func TestTableMajority(t *testing.T) {
	virtual := &bench.CapacityResult{Objective: "p99<=300ms", Rate: 2683, Stop: "precision", MustPass: 2, Asked: 3,
		Confirmations: []bench.CapacityTrial{
			{Phase: "confirm", Rate: 2683, Throughput: 2714, Pass: true},
			{Phase: "confirm", Rate: 2683, Throughput: 2683, Violations: []string{"p99 485.4ms > 300ms"}},
			{Phase: "confirm", Rate: 2683, Throughput: 2709, Pass: true}},
		Failed: &bench.CapacityTrial{Rate: 2769, Violations: []string{"p99 445.2ms > 300ms"}}}
	old := &bench.CapacityResult{Objective: "p99<=300ms", Rate: 980, Stop: "precision",
		Confirmations: []bench.CapacityTrial{{Throughput: 979}, {Throughput: 975}}}
	tab := analysis.CapacityTable(&bench.Run{Targets: []bench.TargetResult{{Target: "java-virtual", Capacity: virtual}, {Target: "go", Capacity: old}}})
	if r := tab.Rows[0]; r.Passed != 2 || r.Ran != 3 || r.MustPass != 2 || len(r.Misses) != 1 {
		t.Errorf("row %+v, want 2 of 3 passed, 2 asked, one miss", r)
	}
	want := "java-virtual carries 2683 req/s within p99<=300ms (2 of 3 confirmations passed, 2 asked to; they served 2683–2714 req/s; the other failed: p99 485.4ms > 300ms); 2769 req/s failed: p99 445.2ms > 300ms."
	if tab.Sentences[0] != want {
		t.Errorf("sentence\n%s\nwant\n%s", tab.Sentences[0], want)
	}
	if r := tab.Rows[1]; r.Passed != 2 || r.Ran != 2 || len(r.Misses) != 0 || !strings.Contains(tab.Sentences[1], "(confirmations served 975–979 req/s)") {
		t.Errorf("old run's row %+v: %s", r, tab.Sentences[1])
	}
}

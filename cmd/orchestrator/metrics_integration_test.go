//go:build integration

package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
	"github.com/threadbench/threadbench/internal/store"
)

// threadSeries are the stored series the thread figures come from.
var threadSeries = []string{
	"jvm_threads_live_threads", "jvm_threads_peak_threads", "jvm_threads_virtual_live_threads", "go_threads", "go_goroutines",
	metrics.InflightRequests, metrics.ContainerCPURatio, metrics.ContainerMemoryWorkingSet,
}

// TestMeasureMetricsUnderLoad reads the shared three-target run (poolRun: 400
// clients of heavy?duration=500 in one stage) and checks, from the
// stored series and the run document, that the thread counts show each
// thread model: Tomcat's pool fills with platform threads, the virtual
// target holds a virtual thread per request on a few platform threads, Go
// a goroutine per connection; and that every target has its container's
// CPU and memory and its resource summaries.
func TestMeasureMetricsUnderLoad(t *testing.T) {
	alone(t)
	run, db := poolRun(t)
	h := openHistoryDB(t, db)
	for _, name := range []string{"go", "java-platform", "java-virtual"} {
		t.Run(name, func(t *testing.T) {
			u := loadUnder(t, h, run, name)
			u.check(t)
			u.log(t)
		})
	}
}

// underLoad is what one target's run left: its result, the 400-client
// stage's resources and its series, with peaks over that stage.
type underLoad struct {
	target    string
	result    *bench.TargetResult
	stage     bench.StageResult
	resources bench.StageResources
	series    []bench.Series
	expos     []bench.Exposition
}

func loadUnder(t *testing.T, h *store.DB, run *bench.Run, target string) underLoad {
	t.Helper()
	tr := run.Target(target)
	if tr == nil || tr.Status != bench.TargetSucceeded {
		t.Fatalf("target %s: %+v", target, tr)
	}
	c400 := slices.IndexFunc(tr.Stages, func(st bench.StageResult) bool { return st.Concurrency == 400 }) // above Tomcat's pool
	if c400 < 0 {
		t.Fatalf("no stage of 400 clients in %d measured", len(tr.Stages))
	}
	u := underLoad{target: target, result: tr, stage: tr.Stages[c400]}
	i := slices.IndexFunc(tr.Resources, func(r bench.StageResources) bool { return !r.Warmup && r.Stage == c400 })
	if i < 0 {
		t.Fatalf("no resources for the measured stage: %+v", tr.Resources)
	}
	u.resources = tr.Resources[i]
	var err error
	ctx := context.Background()
	if u.series, err = h.FindSeries(ctx, run.ID, target, threadSeries); err != nil {
		t.Fatal(err)
	}
	if u.expos, err = h.FindExpositions(ctx, run.ID, target); err != nil {
		t.Fatal(err)
	}
	return u
}

// peak is the largest value over the measured stage of the series named
// name whose labels include want, summed where several match at one
// instant; found says whether any point fell in the stage.
func (u underLoad) peak(name string, want map[string]string) (peak float64, found bool) {
	start := u.stage.StartOffset.D().Seconds()
	end := start + u.stage.Duration.D().Seconds()
	sums := map[float64]float64{}
	for _, s := range u.series {
		if s.Name != name || !hasLabels(s.Labels, want) {
			continue
		}
		for _, p := range s.Points {
			if p.T >= start && p.T < end {
				sums[p.T] += p.V
			}
		}
	}
	for _, v := range sums {
		peak = max(peak, v)
	}
	return peak, len(sums) > 0
}

func hasLabels(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// inflight is the in-flight gauge's label selector for a kind of thread.
func inflight(thread string) map[string]string { return map[string]string{"thread": thread} }

// check asserts the thread model's signature and the container figures.
func (u underLoad) check(t *testing.T) {
	t.Helper()
	switch u.target {
	case "java-platform":
		// Tomcat serves its metrics from the saturated pool, so sampled
		// live counts can miss the stage: the JVM's own peak cannot.
		u.lastAtLeast(t, "jvm_threads_peak_threads", 150)
		u.neverAbove(t, metrics.InflightRequests, inflight("virtual"), 0)
	case "java-virtual":
		u.below(t, "jvm_threads_live_threads", nil, 50)
		u.atLeast(t, metrics.InflightRequests, inflight("virtual"), 250)
		if got := u.resources.Thread(bench.ThreadVirtual).Peak; got <= 250 {
			t.Errorf("resources: peak virtual threads %v, want > 250 (the in-flight virtual gauge)", got)
		}
	case "go":
		u.atLeast(t, "go_goroutines", nil, 250)
	}
	u.checkContainer(t)
	u.checkDocument(t)
}

// atLeast asserts the series' peak over the measured stage exceeds floor.
func (u underLoad) atLeast(t *testing.T, name string, labels map[string]string, floor float64) {
	t.Helper()
	if got, ok := u.peak(name, labels); !ok || got <= floor {
		t.Errorf("peak %s%v = %v (points in the stage: %v), want > %v", name, labels, got, ok, floor)
	}
}

// lastAtLeast asserts the series' last sample, whenever taken, exceeds
// floor: for a gauge that only grows (a peak).
func (u underLoad) lastAtLeast(t *testing.T, name string, floor float64) {
	t.Helper()
	for _, s := range u.series {
		if s.Name == name && len(s.Points) > 0 {
			if last := s.Points[len(s.Points)-1].V; last <= floor {
				t.Errorf("%s ends at %v, want > %v", name, last, floor)
			}
			return
		}
	}
	t.Errorf("no series %s", name)
}

// neverAbove asserts the series has samples and none exceeds ceiling.
func (u underLoad) neverAbove(t *testing.T, name string, labels map[string]string, ceiling float64) {
	t.Helper()
	points := 0
	for _, s := range u.series {
		if s.Name != name || !hasLabels(s.Labels, labels) {
			continue
		}
		for _, p := range s.Points {
			points++
			if p.V > ceiling {
				t.Errorf("%s%v = %v at t=%.1f, want at most %v", name, labels, p.V, p.T, ceiling)
				return
			}
		}
	}
	if points == 0 {
		t.Errorf("no samples of %s%v", name, labels)
	}
}

// below asserts the series has points in the measured stage, all under ceiling.
func (u underLoad) below(t *testing.T, name string, labels map[string]string, ceiling float64) {
	t.Helper()
	if got, ok := u.peak(name, labels); !ok || got >= ceiling {
		t.Errorf("peak %s%v = %v (points in the stage: %v), want < %v", name, labels, got, ok, ceiling)
	}
}

// checkContainer asserts the container's CPU and working set were sampled.
func (u underLoad) checkContainer(t *testing.T) {
	t.Helper()
	for _, name := range []string{metrics.ContainerCPURatio, metrics.ContainerMemoryWorkingSet} {
		var points int
		var peak float64
		for _, s := range u.series {
			if s.Name == name {
				points += len(s.Points)
				for _, p := range s.Points {
					peak = max(peak, p.V)
				}
			}
		}
		if points == 0 || peak <= 0 {
			t.Errorf("%s: %d points, peak %v; want points with positive values", name, points, peak)
		}
	}
}

// checkDocument asserts the run document lists the curated series and
// summarises resources, and that both raw expositions were kept.
func (u underLoad) checkDocument(t *testing.T) {
	t.Helper()
	want := []string{metrics.InflightRequests, metrics.ContainerCPURatio, metrics.ContainerMemoryWorkingSet}
	if u.target == "go" {
		want = append(want, "go_goroutines", "go_threads")
	} else {
		want = append(want, "jvm_threads_live_threads")
	}
	for _, name := range want {
		if !slices.Contains(u.result.Series, name) {
			t.Errorf("run document lists series %v, without %s", u.result.Series, name)
		}
	}
	if r := u.resources; r.MemoryGauge(bench.MemoryWorkingSet).Peak <= 0 || r.CPUSecondsPer1k <= 0 {
		t.Errorf("measured stage resources %+v: want a peak working set and CPU seconds per 1k", r)
	}
	var at []string
	for _, e := range u.expos {
		if strings.Contains(e.Text, metrics.InflightRequests) {
			at = append(at, e.At)
		}
	}
	if !slices.Equal(at, []string{"start", "end"}) {
		t.Errorf("expositions with the in-flight gauge at %v, want [start end]", at)
	}
}

// log prints the figures the thread models are compared by.
func (u underLoad) log(t *testing.T) {
	platformGauge := "jvm_threads_live_threads"
	if u.target == "go" {
		platformGauge = "go_threads"
	}
	platform, _ := u.peak(platformGauge, nil)
	virtual, _ := u.peak(metrics.InflightRequests, inflight("virtual"))
	liveVirtual, _ := u.peak("jvm_threads_virtual_live_threads", nil)
	goroutines, _ := u.peak("go_goroutines", nil)
	r := u.resources
	t.Logf("%s: peak platform threads %.0f (%s), peak virtual threads %.0f (in flight; Micrometer's live count %.0f), "+
		"peak goroutines %.0f, peak working set %.1f MiB, CPU %.3f s per 1k requests, throughput %.1f req/s, "+
		"p50 %.1f ms, p99 %.1f ms, successes %d of %d",
		u.target, platform, platformGauge, virtual, liveVirtual, goroutines, r.MemoryGauge(bench.MemoryWorkingSet).Peak/(1<<20),
		r.CPUSecondsPer1k, u.stage.Stats.Throughput, u.stage.Stats.Latency.P50, u.stage.Stats.Latency.P99,
		u.stage.Stats.Successes, u.stage.Stats.Requests)
}

package inside

import (
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// The evidence around a stage is read from the series inside its window
// only: the container's CPU and its CFS periods, Tomcat's busy threads
// against the pool's size.
func TestStageEvidence(t *testing.T) {
	series := []bench.Series{
		// each the use since the point before: 0.1 during the warm-up
		// up to 0.1 s, 0.9 to 1.1 s...; 0.2 over 4.1-6 s, mostly after
		{Name: seriesCPURatio, Points: []bench.Point{{T: -1, V: 0.5}, {T: 0.1, V: 0.1}, {T: 1.1, V: 0.9}, {T: 2.1, V: 1.0}, {T: 3.1, V: 0.95}, {T: 4.1, V: 0.95}, {T: 6, V: 0.2}}},
		{Name: seriesThrottled, Points: []bench.Point{{T: 0, V: 100}, {T: 2, V: 150}, {T: 4, V: 190}, {T: 6, V: 190}}},
		{Name: seriesPeriods, Points: []bench.Point{{T: 0, V: 1000}, {T: 2, V: 1200}, {T: 4, V: 1400}, {T: 6, V: 1600}}},
		{Name: seriesTomcatBusy, Points: []bench.Point{{T: 1, V: 200}, {T: 3, V: 190}, {T: 5, V: 3}}},
	}
	tr := &bench.TargetResult{Target: bench.TargetJavaPlatform, Image: bench.ImageInfo{Runtime: "OpenJDK 25.0.3+9"},
		Settings: map[string]string{"javaThreadModel": "platform", "tomcatMaxThreads": "200"}}
	st := bench.StageResult{Index: 0, StartOffset: 0, Duration: bench.Duration(4 * time.Second)}
	e := StageEvidence(tr, st, series)
	if e.JDK != 25 {
		t.Errorf("JDK %d, want 25", e.JDK)
	}
	if e.CPU == nil || e.CPU.Share != 0.95 || e.CPU.PeakShare != 1 || e.CPU.ThrottledPeriods != 90 || e.CPU.Periods != 400 {
		t.Errorf("CPU %+v, want mean 0.95 of 0.1-4.1 s, peak 1, 90 of 400 periods throttled", e.CPU)
	}
	if e.Pool == nil || e.Pool.Max != 200 || e.Pool.Busy.Mean != 195 || e.Pool.Busy.Peak != 200 {
		t.Errorf("pool %+v, want 195 of 200 busy on average", e.Pool)
	}
	// Virtual threads have no pool to be bound by, and a Go target no JDK.
	tr.Settings["javaThreadModel"] = "virtual"
	tr.Image.Runtime = "go1.26.8"
	if e := StageEvidence(tr, st, series); e.Pool != nil || e.JDK != 0 {
		t.Errorf("pool %+v, JDK %d; want none", e.Pool, e.JDK)
	}
}

func TestCarriers(t *testing.T) {
	tr := &bench.TargetResult{Settings: map[string]string{"jvmFlags": "-XX:MaxRAMPercentage=50 -Djdk.virtualThreadScheduler.parallelism=1"}}
	if got := carriers(tr); got != 1 {
		t.Errorf("carriers %v, want 1", got)
	}
	if got := carriers(&bench.TargetResult{}); got != 0 {
		t.Errorf("carriers %v, want 0 (the default)", got)
	}
}

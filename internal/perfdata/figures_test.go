package perfdata_test

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/perfdata"
)

// TestFiguresOf checks the figures of real files against the counters
// jstat read from them (testdata/*.jstat), summed by hand.
func TestFiguresOf(t *testing.T) {
	tests := []struct {
		capture    string
		heapUsed   int64 // sun.gc.generation.*.space.*.used
		committed  int64 // sun.gc.generation.*.capacity
		collectors []perfdata.Collector
		jit        float64
		compiled   int64
		classes    int64 // java.cls.loadedClasses + java.cls.sharedLoadedClasses
		safepoints int64
		started    int64 // ms
	}{
		{"jdk17-g1", 8457960, 67108896, g1(54, 0.391683512), 0.856522314, 123, 509, 54, 1795902789781},
		{"jdk21-g1", 39567744, 67108864, g1(108, 0.345440624), 0.544403569, 159, 586, 108, 1795902802159},
		{"jdk25-g1", 22541640, 67108864, g1(73, 0.369035942), 0.554111172, 107, 630, 73, 1795902814520},
		{"jdk25-serial", 37441120, 67108864, []perfdata.Collector{
			{Name: "Serial young collection pauses", Collections: 217, Seconds: 0.625428013},
			{Name: "Serial full collection pauses"}}, 0.487839356, 104, 630, 217, 1795902818583},
		// Parallel commits more to the young generation than its three spaces hold.
		{"jdk25-parallel", 21044392, 67108864, []perfdata.Collector{
			{Name: "Parallel young collection pauses", Collections: 169, Seconds: 0.675688998},
			{Name: "Parallel full collection pauses"}}, 0.455757506, 109, 630, 169, 1795902822678},
		// ZGC numbers its collectors 0 and 2.
		{"jdk25-z", 50331648, 67108864, []perfdata.Collector{
			{Name: "ZGC minor collection pauses", Collections: 251, Seconds: 0.002646128},
			{Name: "ZGC major collection pauses", Collections: 21, Seconds: 0.000254391}}, 0.518612296, 138, 643, 273, 1795902845634},
		// Shenandoah's young generation is empty, its "Heap" is all.
		{"jdk25-shenandoah", 53785168, 67108864, []perfdata.Collector{
			{Name: "Shenandoah partial"},
			{Name: "Shenandoah full", Collections: 641, Seconds: 1.533677084}}, 0.710881917, 109, 630, 125, 1795902849976},
	}
	for _, tt := range tests {
		t.Run(tt.capture, func(t *testing.T) {
			f := perfdata.FiguresOf(parseCapture(t, tt.capture))
			// Churn's main thread and three daemons, and the JVM's five daemons.
			checkLong(t, "Threads", f.Threads, 9)
			checkLong(t, "DaemonThreads", f.DaemonThreads, 8)
			checkLong(t, "PeakThreads", f.PeakThreads, 9)
			checkLong(t, "HeapUsed", f.HeapUsed, tt.heapUsed)
			checkLong(t, "HeapCommitted", f.HeapCommitted, tt.committed)
			checkSeconds(t, "JITSeconds", f.JITSeconds, tt.jit)
			checkLong(t, "CompiledMethods", f.CompiledMethods, tt.compiled)
			checkLong(t, "ClassesLoaded", f.ClassesLoaded, tt.classes)
			checkLong(t, "Safepoints", f.Safepoints, tt.safepoints)
			if f.SafepointSeconds == nil || *f.SafepointSeconds <= 0 {
				t.Errorf("SafepointSeconds = %v, want > 0", f.SafepointSeconds)
			}
			if got, want := f.Started, time.UnixMilli(tt.started); !got.Equal(want) {
				t.Errorf("Started = %v, want %v", got, want)
			}
			if !reflect.DeepEqual(f.Collectors, tt.collectors) {
				t.Errorf("Collectors = %+v\nwant %+v", f.Collectors, tt.collectors)
			}
		})
	}
}

// TestFiguresOf_Missing checks that counters a file lacks give absent
// figures, not zeros.
func TestFiguresOf_Missing(t *testing.T) {
	tests := []struct {
		name     string
		counters perfdata.Counters
	}{
		{"no counters", perfdata.Counters{}},
		// Times in ticks cannot be seconds without the clock's frequency,
		// and a collector without its time is left out.
		{"no frequency", perfdata.Counters{
			"java.ci.totalTime":              {Long: 5, Unit: perfdata.UnitTicks},
			"sun.rt.safepointTime":           {Long: 5, Unit: perfdata.UnitTicks},
			"sun.gc.collector.0.name":        {Text: "Serial young collection pauses", Unit: perfdata.UnitString},
			"sun.gc.collector.0.invocations": {Long: 5, Unit: perfdata.UnitEvents},
			"sun.gc.collector.0.time":        {Long: 5, Unit: perfdata.UnitTicks},
		}},
		// A counter of the right name but not a number.
		{"text where a number is", perfdata.Counters{"java.threads.live": {Text: "9", Unit: perfdata.UnitString}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := perfdata.FiguresOf(tt.counters); !reflect.DeepEqual(got, perfdata.Figures{}) {
				t.Errorf("FiguresOf = %+v, want no figure", got)
			}
		})
	}
}

// TestFigures_GCTotals checks the sums over collectors, and that a JVM
// without collectors has none rather than zero.
func TestFigures_GCTotals(t *testing.T) {
	f := perfdata.FiguresOf(parseCapture(t, "jdk25-z"))
	if got, ok := f.GCCollections(); !ok || got != 272 {
		t.Errorf("GCCollections = %d, %v; want 272", got, ok)
	}
	if got, ok := f.GCSeconds(); !ok || math.Abs(got-0.002900519) > 1e-12 {
		t.Errorf("GCSeconds = %v, %v; want 0.002900519", got, ok)
	}
	var none perfdata.Figures
	if _, ok := none.GCCollections(); ok {
		t.Error("GCCollections without collectors gave a value")
	}
	if _, ok := none.GCSeconds(); ok {
		t.Error("GCSeconds without collectors gave a value")
	}
}

// g1 returns G1's three collectors with young collections only.
func g1(young int64, seconds float64) []perfdata.Collector {
	return []perfdata.Collector{
		{Name: "G1 young collection pauses", Collections: young, Seconds: seconds},
		{Name: "G1 full collection pauses"},
		{Name: "G1 concurrent cycle pauses"},
	}
}

// checkLong reports a figure that is absent or not want.
func checkLong(t *testing.T, name string, got *int64, want int64) {
	t.Helper()
	if got == nil || *got != want {
		t.Errorf("%s = %v, want %d", name, deref(got), want)
	}
}

// checkSeconds reports a figure in seconds that is absent or not want.
func checkSeconds(t *testing.T, name string, got *float64, want float64) {
	t.Helper()
	if got == nil || math.Abs(*got-want) > 1e-12 {
		t.Errorf("%s = %v, want %v", name, deref(got), want)
	}
}

// deref returns *p, or "absent" for nil.
func deref[T any](p *T) any {
	if p == nil {
		return "absent"
	}
	return *p
}

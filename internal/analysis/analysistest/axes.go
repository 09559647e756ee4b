package analysistest

import (
	"slices"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// At is the settings a start records for a variant of a target on its
// axes: its thread model and its value of each axis, given as name, value.
func At(model string, axes ...string) map[string]string {
	s := map[string]string{"threadModel": model}
	for i := 0; i+1 < len(axes); i += 2 {
		s["axis."+axes[i]] = axes[i+1]
	}
	return s
}

// Legacy is the fixture service's pinning request.
var Legacy = []bench.Request{{URI: "/api/legacy?delayMs=20", Weight: 1}}

// PinningMatrix is the fixture's pinning endpoint as issue 38 sees it, a
// service in both thread models on JDK 21 and 25: virtual threads far
// behind platform threads on 21 (pinned), level with them on 25.
func PinningMatrix(t *testing.T) *bench.Run {
	t.Helper()
	variant := func(model, jdk string, rps, low, high float64) Crafted {
		return Crafted{Target: "orders@" + model + ",jdk=" + jdk, Settings: At(model, "variant", model, "jdk", jdk),
			PerSecond: Around(rps, 20), Low: low, High: high}
	}
	r := CraftedRun(t, 32, Legacy,
		variant("platform", "21", 400, 70, 90), variant("platform", "25", 410, 70, 90),
		variant("virtual", "21", 60, 500, 600), variant("virtual", "25", 420, 70, 90))
	// What Micrometer's VirtualThreadMetrics said: on 21 the pins of the
	// one carrier, nearly all the stage; on 25 none, and the scheduler's
	// figures, which 21 has not.
	jdk21 := []string{"jvm_threads_virtual_pinned_seconds_count", "jvm_threads_virtual_submit_failed_total"}
	jdk25 := append(slices.Clone(jdk21), "jvm_threads_virtual_parallelism", "jvm_threads_virtual_pool_size_threads")
	scheduler := map[string]bench.Gauge{bench.SchedulerParallelism: {Peak: 1, Mean: 1}, bench.SchedulerPoolSize: {Peak: 1, Mean: 1}, bench.SchedulerQueued: {Peak: 12, Mean: 3}}
	for i, seen := range []struct {
		series    []string
		resources bench.StageResources
	}{
		{jdk21, bench.StageResources{}},
		{jdk25, bench.StageResources{Scheduler: scheduler}},
		{jdk21, bench.StageResources{Pinned: 1150, PinnedSeconds: 19}},
		{jdk25, bench.StageResources{Scheduler: scheduler}},
	} {
		r.Targets[i].Series, r.Targets[i].Resources = seen.series, []bench.StageResources{seen.resources}
	}
	return r
}

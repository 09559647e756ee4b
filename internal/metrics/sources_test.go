package metrics_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
	"github.com/threadbench/threadbench/internal/targets"
)

// TestCatalogSources reads the catalog's thread and memory mapping against
// expositions captured from the real targets under load: each built-in
// target's figures come from its own series, and a runtime reports the
// kinds it has and no others.
func TestCatalogSources(t *testing.T) {
	catalog := targets.DefaultCatalog()
	for _, tc := range []struct {
		target  string
		threads []string
		memory  []string
	}{
		{bench.TargetGo, []string{bench.ThreadGoroutine, bench.ThreadPlatform}, []string{bench.MemoryHeap, bench.MemoryThreadStacks}},
		{bench.TargetJavaPlatform, []string{bench.ThreadPlatform, bench.ThreadVirtual}, []string{bench.MemoryHeap, bench.MemoryThreadStacks, bench.MemoryThreadStacksReserved}},
		{bench.TargetJavaVirtual, []string{bench.ThreadPlatform, bench.ThreadVirtual}, []string{bench.MemoryHeap, bench.MemoryThreadStacks, bench.MemoryThreadStacksReserved}},
	} {
		t.Run(tc.target, func(t *testing.T) {
			entry, err := catalog.Lookup(tc.target)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(filepath.Join("testdata", tc.target+".prom"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			samples, err := metrics.Extract(f)
			if err != nil {
				t.Fatal(err)
			}
			var series []bench.Series
			for _, s := range samples {
				series = append(series, bench.Series{Name: s.Name, Labels: s.Labels, Points: []bench.Point{{T: 0.5, V: s.Value}}})
			}
			res := metrics.Summarize(series, metrics.Sources{Threads: entry.Threads, Memory: entry.Memory}, nil, nil,
				[]bench.StageResult{stage(0, 0, 1, 1)})[0]
			if got := slices.Sorted(maps.Keys(res.Threads)); !slices.Equal(got, tc.threads) {
				t.Errorf("thread kinds %v, want %v (%+v)", got, tc.threads, res.Threads)
			}
			if got := slices.Sorted(maps.Keys(res.Memory)); !slices.Equal(got, tc.memory) {
				t.Errorf("memory figures %v, want %v (%+v)", got, tc.memory, res.Memory)
			}
			if tc.target == bench.TargetJavaVirtual && res.Thread(bench.ThreadVirtual).Peak < 10 {
				t.Errorf("virtual threads %v, want the requests in flight on them", res.Thread(bench.ThreadVirtual))
			}
		})
	}
}

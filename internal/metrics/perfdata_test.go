package metrics_test

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
	"github.com/threadbench/threadbench/internal/perfdata"
	"github.com/threadbench/threadbench/internal/targets"
)

// Copier is a hand-written fake of metrics.Copier.
type Copier struct {
	CopyFromContainerFn func(ctx context.Context, id string, opts client.CopyFromContainerOptions) (client.CopyFromContainerResult, error)
}

var _ metrics.Copier = (*Copier)(nil)

// A started target copies from its own engine, and says whether it runs a
// JVM; so does the engine client copy.
var (
	_ metrics.Copier              = (*targets.Instance)(nil)
	_ interface{ RunsJVM() bool } = (*targets.Instance)(nil)
	_ metrics.Copier              = (*client.Client)(nil)
)

// CopyFromContainer calls CopyFromContainerFn.
func (c *Copier) CopyFromContainer(ctx context.Context, id string, opts client.CopyFromContainerOptions) (client.CopyFromContainerResult, error) {
	return c.CopyFromContainerFn(ctx, id, opts)
}

// fakeContainer is a fake container's file system, served as the engine
// serves it: a file as an archive of itself under its base name, a
// directory as an archive of everything under it named from the
// directory's base name, anything else not found. A file's contents may
// change between copies (files maps a path to its successive versions, the
// last kept once reached).
type fakeContainer struct {
	mu     sync.Mutex
	files  map[string][][]byte
	copies map[string]int // by path asked for
}

func newContainer() *fakeContainer {
	return &fakeContainer{files: map[string][][]byte{}, copies: map[string]int{}}
}

// put adds a file with its successive versions.
func (c *fakeContainer) put(name string, versions ...[]byte) *fakeContainer {
	c.files[name] = versions
	return c
}

// copier returns the fake engine, for container "ctr" only.
func (c *fakeContainer) copier() *Copier {
	return &Copier{CopyFromContainerFn: func(_ context.Context, id string, opts client.CopyFromContainerOptions) (client.CopyFromContainerResult, error) {
		if id != "ctr" {
			return client.CopyFromContainerResult{}, fmt.Errorf("no such container %q: %w", id, cerrdefs.ErrNotFound)
		}
		archive, ok := c.archive(opts.SourcePath)
		if !ok {
			return client.CopyFromContainerResult{}, fmt.Errorf("could not find the file %s in container ctr: %w", opts.SourcePath, cerrdefs.ErrNotFound)
		}
		return client.CopyFromContainerResult{Content: io.NopCloser(bytes.NewReader(archive))}, nil
	}}
}

// archive returns the archive of src, and whether there is anything at src.
func (c *fakeContainer) archive(src string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.copies[src]++
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	found := false
	for _, name := range slices.Sorted(maps.Keys(c.files)) {
		var entry string
		switch {
		case name == src:
			entry = path.Base(name)
		case strings.HasPrefix(name, src+"/"):
			entry = path.Base(src) + strings.TrimPrefix(name, src)
		default:
			continue
		}
		found = true
		versions := c.files[name]
		b := versions[min(c.copies[src], len(versions))-1]
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: entry, Size: int64(len(b)), Mode: 0o600})
		tw.Write(b)
	}
	tw.Close()
	return buf.Bytes(), found
}

// copied is how many times src was asked for.
func (c *fakeContainer) copied(src string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.copies[src]
}

// capture returns a perf data file captured from a running JVM
// (internal/perfdata/testdata) and its figures.
func capture(t *testing.T, name string) ([]byte, perfdata.Figures) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "perfdata", "testdata", name+".hsperfdata"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := perfdata.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return b, perfdata.FiguresOf(c)
}

// orders is a service of one's own's mapping (Actuator's series).
var orders = func() bench.TargetInfo {
	return targets.Own{Name: "orders", Jar: "orders.jar"}.Entry().Info()
}()

// TestRecording_PerfData records a JVM with no metrics endpoint: its perf
// data file is copied every interval and gives the series the tables and
// the warm-up read, labelled as the perf counters'. The file is served as
// the JVM wrote it 2.5 s into one run (G1), then into another (Shenandoah),
// so that every counter grows between the two.
func TestRecording_PerfData(t *testing.T) {
	before, first := capture(t, "jdk25-g1")
	after, last := capture(t, "jdk25-shenandoah")
	ctr := newContainer().put("/tmp/hsperfdata_root/1", before, before, after)
	rec := metrics.NewSampler(nil, metrics.WithInterval(time.Millisecond)).Start(t.Context(), metrics.Target{
		Name: "orders", ContainerID: "ctr", JVM: true, Copier: ctr.copier(),
		Threads: orders.Threads, Memory: orders.Memory,
	})
	waitFor(t, func() bool { return ctr.copied("/tmp/hsperfdata_root/1") > 4 })
	_, jit, ok := rec.Latest(metrics.JVMCompilationMs)
	if want := *last.JITSeconds * 1000; !ok || !near(jit, want) {
		t.Errorf("the warm-up reads a JIT time of %v ms (ok %v), want the file's %v", jit, ok, want)
	}
	res := rec.Stop(t.Context(), nil, []bench.StageResult{stage(0, -60, 120, 1000)})

	if res.StatsFailures != 0 || res.ScrapeFailures != 0 {
		t.Errorf("failures: stats %d, scrapes %d (%s)", res.StatsFailures, res.ScrapeFailures, res.LastError)
	}
	gcBefore, _ := first.GCCollections()
	gcAfter, _ := last.GCCollections()
	gcSecBefore, _ := first.GCSeconds()
	gcSecAfter, _ := last.GCSeconds()
	for _, tc := range []struct {
		name, area  string
		first, last float64
	}{
		{metrics.JVMThreadsLive, "", float64(*first.Threads), float64(*last.Threads)},
		{metrics.JVMMemoryUsed, "heap", float64(*first.HeapUsed), float64(*last.HeapUsed)},
		{metrics.JVMMemoryCommitted, "heap", float64(*first.HeapCommitted), float64(*last.HeapCommitted)},
		{metrics.JVMGCPauses, "", float64(gcBefore), float64(gcAfter)},
		{metrics.JVMGCPauseSeconds, "", gcSecBefore, gcSecAfter},
		{metrics.JVMCompilationMs, "", *first.JITSeconds * 1000, *last.JITSeconds * 1000},
	} {
		s, ok := findSeries(res.Series, tc.name)
		if !ok {
			t.Errorf("no series %s in %v", tc.name, names(res.Series))
			continue
		}
		if s.Labels[metrics.SourceLabel] != metrics.SourcePerfData || s.Labels["area"] != tc.area {
			t.Errorf("%s labelled %v, want source=%s and area %q", tc.name, s.Labels, metrics.SourcePerfData, tc.area)
		}
		if got := s.Points[0].V; !near(got, tc.first) {
			t.Errorf("%s first %v, want %v", tc.name, got, tc.first)
		}
		if got := s.Points[len(s.Points)-1].V; !near(got, tc.last) {
			t.Errorf("%s last %v, want %v", tc.name, got, tc.last)
		}
	}
	r := res.Resources[0]
	if got, want := r.Thread(bench.ThreadPlatform).Peak, float64(*last.Threads); got != want {
		t.Errorf("platform threads peak %v, want the JVM's %v", got, want)
	}
	if got, want := r.MemoryGauge(bench.MemoryHeap).Peak, float64(max(*first.HeapUsed, *last.HeapUsed)); got != want {
		t.Errorf("heap peak %v, want %v", got, want)
	}
	if got, want := r.GCPauses, float64(gcAfter-gcBefore); got != want {
		t.Errorf("GC pauses in the stage %v, want %v", got, want)
	}
	if got, want := r.GCPauseSeconds, gcSecAfter-gcSecBefore; !near(got, want) {
		t.Errorf("GC pause seconds in the stage %v, want %v", got, want)
	}
}

// TestRecording_PerfDataMicrometerWins records JVMs with a Prometheus
// endpoint: where the scrape gives the JVM's series (Micrometer's), the
// perf data file is never copied; where it gives none of them (a registry
// without the JVM's binders), the file is, and fills in.
func TestRecording_PerfDataMicrometerWins(t *testing.T) {
	micrometer, err := os.ReadFile(filepath.Join("testdata", bench.TargetJavaVirtual+".prom"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		exposition string
		copies     bool
	}{
		{"Micrometer", string(micrometer), false},
		{"NoJVMSeries", "# TYPE process_cpu_usage gauge\nprocess_cpu_usage 0.5\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var served atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				served.Add(1)
				io.WriteString(w, tc.exposition)
			}))
			defer srv.Close()
			file, _ := capture(t, "jdk21-g1")
			ctr := newContainer().put("/tmp/hsperfdata_root/1", file)
			// An interval long enough for a scrape of 700 lines under the
			// race detector: one that timed out would not cover.
			rec := metrics.NewSampler(nil, metrics.WithInterval(40*time.Millisecond)).Start(t.Context(), metrics.Target{
				Name: "orders", MetricsURL: srv.URL, ContainerID: "ctr", JVM: true, Copier: ctr.copier(),
				Threads: orders.Threads, Memory: orders.Memory,
			})
			waitFor(t, func() bool { return served.Load() > 3 })
			res := rec.Stop(t.Context(), nil, []bench.StageResult{stage(0, -60, 120, 1000)})
			if got := ctr.copied("/tmp/hsperfdata_root/1") > 0; got != tc.copies {
				t.Errorf("perf data copied %d times, want copies %v", ctr.copied("/tmp/hsperfdata_root/1"), tc.copies)
			}
			s, ok := findSeries(res.Series, metrics.JVMThreadsLive)
			if !ok {
				t.Fatalf("no %s in %v", metrics.JVMThreadsLive, names(res.Series))
			}
			if fromPerf := s.Labels[metrics.SourceLabel] == metrics.SourcePerfData; fromPerf != tc.copies {
				t.Errorf("%s labelled %v, want from the perf counters %v", s.Name, s.Labels, tc.copies)
			}
		})
	}
}

// TestRecording_PerfDataShadowed: a JVM whose first scrapes fail is read
// from its perf counters meanwhile; once a scrape gives the JVM's series,
// the copies stop, and each series the scrape gave is Micrometer's alone,
// in the result and for the warm-up. A series Micrometer registers late
// (GC pauses, at the first it sees) stays the perf counters' until then.
func TestRecording_PerfDataShadowed(t *testing.T) {
	var served atomic.Int64
	exposition := "jvm_threads_live_threads 42\njvm_memory_used_bytes{area=\"heap\",id=\"G1 Eden Space\"} 1000\n" +
		"jvm_memory_committed_bytes{area=\"heap\",id=\"G1 Eden Space\"} 2000\njvm_compilation_time_ms_total 77\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) <= 3 {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, exposition)
	}))
	defer srv.Close()
	file, _ := capture(t, "jdk21-g1")
	ctr := newContainer().put("/tmp/hsperfdata_root/1", file)
	rec := metrics.NewSampler(nil, metrics.WithInterval(5*time.Millisecond)).Start(t.Context(), metrics.Target{
		Name: "orders", MetricsURL: srv.URL, ContainerID: "ctr", JVM: true, Copier: ctr.copier(),
		Threads: orders.Threads, Memory: orders.Memory,
	})
	waitFor(t, func() bool { return served.Load() > 6 })
	copies := ctr.copied("/tmp/hsperfdata_root/1")
	_, jit, ok := rec.Latest(metrics.JVMCompilationMs)
	waitFor(t, func() bool { return served.Load() > 12 })
	res := rec.Stop(t.Context(), nil, []bench.StageResult{stage(0, -60, 120, 1000)})

	if copies == 0 || ctr.copied("/tmp/hsperfdata_root/1") > copies+1 {
		t.Errorf("perf data copied %d times before the scrape answered, %d in all: want copies until then only",
			copies, ctr.copied("/tmp/hsperfdata_root/1"))
	}
	if !ok || jit != 77 {
		t.Errorf("the warm-up reads %v ms (ok %v), want Micrometer's 77", jit, ok)
	}
	for _, s := range res.Series {
		fromPerf := s.Labels[metrics.SourceLabel] == metrics.SourcePerfData
		if late := s.Name == metrics.JVMGCPauses || s.Name == metrics.JVMGCPauseSeconds; fromPerf != late {
			t.Errorf("%s %v: from the perf counters %v, want %v", s.Name, s.Labels, fromPerf, late)
		}
	}
	if got := res.Resources[0].Thread(bench.ThreadPlatform).Peak; got != 42 {
		t.Errorf("platform threads %v, want Micrometer's 42 alone", got)
	}
}

// TestRecording_PerfDataFound: a JVM that is not pid 1, run by a user of
// its own, is found among the container's /tmp files and then copied
// alone.
func TestRecording_PerfDataFound(t *testing.T) {
	file, figures := capture(t, "jdk17-g1")
	ctr := newContainer().
		put("/tmp/tomcat.8080/work", bytes.Repeat([]byte("x"), 100<<10)).
		put("/tmp/hsperfdata_app/7", file)
	rec := metrics.NewSampler(nil, metrics.WithInterval(time.Millisecond)).Start(t.Context(), metrics.Target{
		Name: "svc", ContainerID: "ctr", JVM: true, Copier: ctr.copier(),
	})
	waitFor(t, func() bool { return ctr.copied("/tmp/hsperfdata_app/7") > 2 })
	res := rec.Stop(t.Context(), nil, nil)
	if got := ctr.copied("/tmp"); got != 1 {
		t.Errorf("/tmp copied %d times, want once, to find the file", got)
	}
	if s, ok := findSeries(res.Series, metrics.JVMThreadsLive); !ok || s.Points[0].V != float64(*figures.Threads) {
		t.Errorf("threads %+v (found %v), want the JVM's %d", s, ok, *figures.Threads)
	}
}

// TestRecording_NoPerfData: a JVM that keeps no perf data file
// (-XX:-UsePerfData) is looked for three times, each a failure the result
// counts and names, then no more; a target that is no JVM never is.
func TestRecording_NoPerfData(t *testing.T) {
	t.Run("JVM", func(t *testing.T) {
		ctr := newContainer().put("/tmp/tomcat.8080/work", []byte("x"))
		rec := metrics.NewSampler(nil, metrics.WithInterval(time.Millisecond)).Start(t.Context(), metrics.Target{
			Name: "svc", ContainerID: "ctr", JVM: true, Copier: ctr.copier(),
		})
		waitFor(t, func() bool { return ctr.copied("/tmp") == 3 })
		time.Sleep(20 * time.Millisecond)
		res := rec.Stop(t.Context(), nil, nil)
		if got := ctr.copied("/tmp"); got != 3 {
			t.Errorf("/tmp searched %d times, want 3", got)
		}
		if res.StatsFailures != 3 || !strings.Contains(res.LastError, "no JVM perf data file") || !strings.Contains(res.LastError, "target svc") {
			t.Errorf("%d failures, last %q: want 3, naming the target and the missing file", res.StatsFailures, res.LastError)
		}
		if len(res.Series) != 0 {
			t.Errorf("series %v, want none", names(res.Series))
		}
	})
	t.Run("Go", func(t *testing.T) {
		ctr := newContainer()
		rec := metrics.NewSampler(nil, metrics.WithInterval(time.Millisecond)).Start(t.Context(), metrics.Target{
			Name: "go", ContainerID: "ctr", Copier: ctr.copier(),
		})
		time.Sleep(20 * time.Millisecond)
		rec.Stop(t.Context(), nil, nil)
		if got := ctr.copied("/tmp/hsperfdata_root/1") + ctr.copied("/tmp"); got != 0 {
			t.Errorf("%d copies from a target that runs no JVM, want none", got)
		}
	})
}

// findSeries returns the first series of a name.
func findSeries(series []bench.Series, name string) (bench.Series, bool) {
	i := slices.IndexFunc(series, func(s bench.Series) bool { return s.Name == name })
	if i < 0 {
		return bench.Series{}, false
	}
	return series[i], true
}

// names lists the series' names.
func names(series []bench.Series) []string {
	var out []string
	for _, s := range series {
		out = append(out, s.Name)
	}
	return out
}

// near reports whether two figures agree to a millionth.
func near(got, want float64) bool {
	return got == want || (got-want)/want < 1e-6 && (want-got)/want < 1e-6
}

package metrics

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/perfdata"
)

// A JVM publishes its own counters (threads, heap, collections, JIT time)
// in its perf data file, the one jstat reads, whether or not the service
// has a Prometheus endpoint. Where a JVM's scrape lacks the series the
// tables and the warm-up read (no endpoint at all, or Actuator without
// Micrometer's Prometheus registry), the recording copies that file out of
// the container every interval through the engine (CopyFromContainer: one
// 32 KiB file, nothing needed in the image) and writes the same series
// under Micrometer's names, labelled SourceLabel=SourcePerfData, so that
// everything that reads them works unchanged.
//
// Micrometer's win where both exist: they are what a service with them has
// always been measured by, and the copy is then not made at all. The
// source waits for the first scrape, stops copying as soon as the scrape
// gives every series it would write, and a series the scrape gives
// shadows its perf counters' twin (timeline.shadowed), so the two are
// never mixed.

// SourceLabel is the label that says where a series came from;
// SourcePerfData is its value on the series read from a JVM's perf
// counters (hsperfdata) rather than scraped.
const (
	SourceLabel    = "source"
	SourcePerfData = "hsperfdata"
)

// Copier copies files out of a container, as a tar archive (the engine
// API's GET /containers/{id}/archive). The engine client
// (*client.Client) and a started target (targets.Instance, from the engine
// it runs on) satisfy it.
type Copier interface {
	CopyFromContainer(ctx context.Context, containerID string, options client.CopyFromContainerOptions) (client.CopyFromContainerResult, error)
}

var _ Copier = (*client.Client)(nil)

// perfFigure is a series the perf counters give: its name and labels as
// Micrometer writes them, and how it is read from the JVM's figures. A
// series Micrometer registers only when it first has something to count
// is late: its absence from a scrape does not say Micrometer lacks it.
type perfFigure struct {
	series Sample
	value  func(perfdata.Figures) (float64, bool)
	late   bool
}

// perfFigures are the series read from the perf counters. A heap's used
// bytes are those of its generations' spaces, Micrometer's those of its
// pools: the same bytes. The collectors G1, Serial, Parallel and ZGC name
// in the file count their pauses ("G1 young collection pauses");
// Shenandoah's time its whole cycles, concurrent parts included (--gc
// does not offer it; a service's own flags may choose it).
var perfFigures = []perfFigure{
	{Sample{Name: JVMThreadsLive}, func(f perfdata.Figures) (float64, bool) { return value(f.Threads) }, false},
	{Sample{Name: JVMMemoryUsed, Labels: map[string]string{areaLabel: areaHeap}}, func(f perfdata.Figures) (float64, bool) { return value(f.HeapUsed) }, false},
	{Sample{Name: JVMMemoryCommitted, Labels: map[string]string{areaLabel: areaHeap}}, func(f perfdata.Figures) (float64, bool) { return value(f.HeapCommitted) }, false},
	// Micrometer's pause timer appears with the first pause it is told of.
	{Sample{Name: JVMGCPauses}, func(f perfdata.Figures) (float64, bool) {
		n, ok := f.GCCollections()
		return float64(n), ok
	}, true},
	{Sample{Name: JVMGCPauseSeconds}, func(f perfdata.Figures) (float64, bool) { return f.GCSeconds() }, true},
	{Sample{Name: JVMCompilationMs}, func(f perfdata.Figures) (float64, bool) {
		seconds, ok := value(f.JITSeconds)
		return seconds * 1000, ok
	}, false},
}

// covering are the series a scrape must give for the perf counters not to
// be read: every one they give, as a scrape would give it, but the late.
// Until Micrometer's pause timer appears, no pause is what it says.
func covering() []Sample {
	var out []Sample
	for _, f := range perfFigures {
		if !f.late {
			out = append(out, f.series)
		}
	}
	return out
}

// perfSamples returns the samples a JVM's figures give: Micrometer's
// series, labelled SourceLabel=SourcePerfData. A figure the file lacks
// gives none.
func perfSamples(f perfdata.Figures) []Sample {
	var out []Sample
	for _, fig := range perfFigures {
		v, ok := fig.value(f)
		if !ok {
			continue
		}
		labels := maps.Clone(fig.series.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels[SourceLabel] = SourcePerfData
		out = append(out, Sample{Name: fig.series.Name, Labels: labels, Value: v})
	}
	return out
}

// value returns *p as a float64; false if p is nil.
func value[T int64 | float64](p *T) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

// Where a JVM's perf data file is: a target's JVM runs as root and is the
// container's pid 1. Any other is looked for under perfDataDir.
var (
	rootJVMFile = "/tmp/hsperfdata_root/1"
	perfDataDir = path.Dir(path.Dir(perfdata.Pattern)) // /tmp
)

// Bounds on what is read: a perf data file is 32 KiB unless the JVM was
// given a larger -XX:PerfDataMemorySize; looking for one reads at most
// maxSearch bytes of the container's /tmp.
const (
	maxPerfDataSize = 4 << 20
	maxSearch       = 16 << 20
)

var (
	// errNoFile is a path the container does not have.
	errNoFile = errors.New("no such file in the container")
	// errNoPerfData is a container without a JVM's perf data file: its JVM
	// runs with -XX:-UsePerfData or -XX:+PerfDisableSharedMem, or its /tmp
	// is a tmpfs, which the engine does not copy from.
	errNoPerfData = errors.New("no JVM perf data file (" + perfdata.Pattern + ") in the container")
)

// perfEvery is how many scrape intervals apart a JVM's perf data file is
// read: a copy out of a container costs Docker Engine 20.10 some 70 ms of
// CPU (it starts a helper process per copy), 7 % of a CPU at one a
// second; every other second halves that, and the figures it feeds
// (threads, heap, GC counts, the warm-up's JIT over windows of 10 s and
// more) need no finer grain.
const perfEvery = 2

// perfSource reads one container's JVM perf data file every interval, from
// once the first scrape has been tried (wait; nil without a scrape) until
// the scrape gives every series it would (covered) or the file is not
// found giveUp times in a row.
type perfSource struct {
	copier   Copier
	id       string
	interval time.Duration
	wait     <-chan struct{}
	covered  func() bool
	file     func(at time.Time, samples []Sample, err error)

	path    string // the file found; empty until then
	missing int    // reads in a row that found no file
}

// giveUp is how many reads in a row may find no perf data file: the JVM
// is started (and healthy) before it is recorded, so its file is there
// unless the JVM keeps none.
const giveUp = 3

// run reads until ctx ends, the scrape covers every series, or no file is
// found giveUp times in a row; each failure is filed.
func (p *perfSource) run(ctx context.Context) {
	if p.wait != nil {
		select {
		case <-ctx.Done():
			return
		case <-p.wait:
		}
	}
	ticker := time.NewTicker(p.interval)
	defer ticker.Stop()
	for !p.covered() && p.missing < giveUp {
		p.readOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// readOnce reads the file once, within scrapeTimeouts intervals, and files
// its samples or the failure under the instant it began.
func (p *perfSource) readOnce(loop context.Context) {
	at := time.Now()
	ctx, cancel := context.WithTimeout(loop, scrapeTimeouts*p.interval)
	defer cancel()
	samples, err := p.read(ctx)
	if loop.Err() != nil {
		return // stopped mid-read: not a failure, and not a sample
	}
	if errors.Is(err, errNoPerfData) {
		p.missing++
	} else {
		p.missing = 0
	}
	p.file(at, samples, err)
}

// read copies the file (finding it first if need be) and returns its
// samples.
func (p *perfSource) read(ctx context.Context) ([]Sample, error) {
	b, err := p.copyKnown(ctx)
	if err != nil {
		return nil, fmt.Errorf("perf data: %w", err)
	}
	counters, err := perfdata.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("perf data %s: %w", p.path, err)
	}
	return perfSamples(perfdata.FiguresOf(counters)), nil
}

// copyKnown returns the contents of the file found before, or finds it.
// A file gone (its JVM restarted under another pid) is looked for again
// the next time.
func (p *perfSource) copyKnown(ctx context.Context) ([]byte, error) {
	if p.path == "" {
		found, b, err := p.find(ctx)
		if err == nil {
			p.path = found
		}
		return b, err
	}
	b, err := p.copyFile(ctx, p.path)
	if errors.Is(err, errNoFile) {
		p.path = ""
	}
	return b, err
}

// find returns the path and contents of the JVM's perf data file: pid 1's
// as root, else the first perfdata.Pattern matches in the container's /tmp
// (pid 1's of any user first).
func (p *perfSource) find(ctx context.Context) (string, []byte, error) {
	b, err := p.copyFile(ctx, rootJVMFile)
	if !errors.Is(err, errNoFile) {
		return rootJVMFile, b, err
	}
	return p.search(ctx)
}

// copyFile returns the contents of the file at src in the container.
func (p *perfSource) copyFile(ctx context.Context, src string) ([]byte, error) {
	res, err := p.copier.CopyFromContainer(ctx, p.id, client.CopyFromContainerOptions{SourcePath: src})
	if cerrdefs.IsNotFound(err) {
		return nil, fmt.Errorf("%s: %w", src, errNoFile)
	}
	if err != nil {
		return nil, fmt.Errorf("copy %s: %w", src, err)
	}
	defer res.Content.Close()
	tr := tar.NewReader(res.Content)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: %w (not in the archive the engine sent)", src, errNoFile)
		}
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", src, err)
		}
		if hdr.Typeflag == tar.TypeReg && path.Base(hdr.Name) == path.Base(src) {
			return readEntry(tr, hdr, src)
		}
	}
}

// search looks through the archive of the container's /tmp for perf data
// files, reading at most maxSearch bytes of it.
func (p *perfSource) search(ctx context.Context) (string, []byte, error) {
	res, err := p.copier.CopyFromContainer(ctx, p.id, client.CopyFromContainerOptions{SourcePath: perfDataDir})
	if cerrdefs.IsNotFound(err) {
		return "", nil, errNoPerfData
	}
	if err != nil {
		return "", nil, fmt.Errorf("copy %s: %w", perfDataDir, err)
	}
	defer res.Content.Close()
	tr := tar.NewReader(io.LimitReader(res.Content, maxSearch))
	var found string
	var contents []byte
	for {
		hdr, err := tr.Next()
		if err != nil {
			break // the end, or the bound: what was found so far
		}
		name := "/" + strings.TrimPrefix(hdr.Name, "/")
		if ok, _ := path.Match(perfdata.Pattern, name); !ok || hdr.Typeflag != tar.TypeReg || (found != "" && path.Base(name) != "1") {
			continue
		}
		if b, err := readEntry(tr, hdr, name); err == nil {
			found, contents = name, b
		}
		if path.Base(name) == "1" {
			break
		}
	}
	if found == "" {
		return "", nil, errNoPerfData
	}
	return found, contents, nil
}

// readEntry reads the archive's current entry, the file at name.
func readEntry(tr *tar.Reader, hdr *tar.Header, name string) ([]byte, error) {
	if hdr.Size > maxPerfDataSize {
		return nil, fmt.Errorf("%s is %d KiB, more than the %d KiB read", name, hdr.Size>>10, maxPerfDataSize>>10)
	}
	b, err := io.ReadAll(tr)
	if err != nil {
		return nil, fmt.Errorf("copy %s: %w", name, err)
	}
	return b, nil
}

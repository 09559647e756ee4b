package metrics

import (
	"context"
	"net/http"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// DefaultInterval is how often a recording samples unless told otherwise.
const DefaultInterval = time.Second

// Target is what a recording watches.
type Target struct {
	Name        string // the target's name, for error messages
	MetricsURL  string // Prometheus endpoint, where the target is reached; empty skips scraping
	ContainerID string // the container whose stats are read; empty skips them
	// Stats reads them; nil means the sampler's own source.
	Stats            StatsSource
	CPULimit         float64 // CPUs the container may use; 0 means all online CPUs
	MemoryLimitBytes int64   // the container's memory limit; 0 when unlimited
	// Threads and Memory say which of its series give the generic figures
	// (the catalog entry's mapping).
	Threads []bench.FigureSource
	Memory  []bench.FigureSource
	// JVM is set for a target that runs a JVM: where its scrape lacks the
	// JVM's series, they are read from its perf counters, copied out of
	// its container by Copier (nil means the sampler's own, when its stats
	// source copies too).
	JVM    bool
	Copier Copier
}

// Sampler starts recordings. It is safe for concurrent use; each recording
// owns its goroutine.
type Sampler struct {
	stats    StatsSource
	copier   Copier // the stats source, when it copies files too (the engine client)
	interval time.Duration
	http     *http.Client
}

// Option configures a Sampler.
type Option func(*Sampler)

// WithInterval sets how often a recording samples; non-positive values keep
// DefaultInterval. A scrape may take at most one interval.
func WithInterval(d time.Duration) Option {
	return func(s *Sampler) {
		if d > 0 {
			s.interval = d
		}
	}
}

// WithHTTPClient sets the client that scrapes metrics endpoints.
func WithHTTPClient(c *http.Client) Option {
	return func(s *Sampler) {
		if c != nil {
			s.http = c
		}
	}
}

// NewSampler returns a Sampler that reads container stats from stats (nil
// records no container series) and, when it is a Copier too (the engine
// client), JVMs' perf data files.
func NewSampler(stats StatsSource, opts ...Option) *Sampler {
	copier, _ := stats.(Copier)
	s := &Sampler{stats: stats, copier: copier, interval: DefaultInterval, http: &http.Client{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Record implements bench.Recorder: it starts recording a started target.
// A target that reads its container's stats or copies its files itself
// (targets.Instance, from the engine it runs on) is asked to: with several
// engines, the sampler's own source knows only one. A target runs a JVM
// when it says so (RunsJVM) or, failing that, its entry's kind is Java.
func (s *Sampler) Record(ctx context.Context, t bench.Target, limits bench.Limits) bench.Recording {
	entry := t.Entry()
	own, _ := t.(StatsSource)
	copier, _ := t.(Copier)
	jvm := entry.Kind == bench.RuntimeJava
	if j, ok := t.(interface{ RunsJVM() bool }); ok {
		jvm = j.RunsJVM()
	}
	return s.Start(ctx, Target{
		Name: entry.Name, MetricsURL: t.MetricsURL(), ContainerID: t.ContainerID(), Stats: own,
		CPULimit: limits.CPUs, MemoryLimitBytes: limits.MemoryMiB << 20,
		Threads: entry.Threads, Memory: entry.Memory, JVM: jvm, Copier: copier,
	})
}

var _ bench.Recorder = (*Sampler)(nil)

// Start starts recording t now, warm-up included, until Stop or until ctx
// ends. The attack's clock reads zero at Start until SetT0 says otherwise.
func (s *Sampler) Start(ctx context.Context, t Target) *Recording {
	ctx, cancel := context.WithCancel(ctx)
	now := time.Now()
	r := &Recording{target: t, interval: s.interval, cancel: cancel, t0: now, timeline: newTimeline()}
	var scraped chan struct{} // closed once the first scrape was tried
	if t.MetricsURL != "" {
		sc := &scraper{client: s.http, url: t.MetricsURL}
		scraped = make(chan struct{})
		r.wg.Go(func() { r.scrapeEvery(ctx, sc, scraped) })
	}
	copier := t.Copier
	if copier == nil {
		copier = s.copier
	}
	if t.JVM && copier != nil && t.ContainerID != "" {
		ps := &perfSource{copier: copier, id: t.ContainerID, interval: perfEvery * s.interval, wait: scraped,
			covered: r.scrapeCovers, file: r.fileStats}
		r.wg.Go(func() { ps.run(ctx) })
	}
	source := t.Stats
	if source == nil {
		source = s.stats
	}
	if source != nil && t.ContainerID != "" {
		st := &statsStream{source: source, id: t.ContainerID, cpuLimit: t.CPULimit, interval: s.interval, file: r.fileStats}
		r.wg.Go(func() { st.run(ctx) })
	}
	return r
}

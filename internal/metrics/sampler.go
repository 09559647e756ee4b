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
}

// Sampler starts recordings. It is safe for concurrent use; each recording
// owns its goroutine.
type Sampler struct {
	stats    StatsSource
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
// records no container series).
func NewSampler(stats StatsSource, opts ...Option) *Sampler {
	s := &Sampler{stats: stats, interval: DefaultInterval, http: &http.Client{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Record implements bench.Recorder: it starts recording a started target.
// A target that reads its container's stats itself (targets.Instance, from
// the engine it runs on) is asked for them: with several engines, the
// sampler's own source knows only one.
func (s *Sampler) Record(ctx context.Context, t bench.Target, limits bench.Limits) bench.Recording {
	entry := t.Entry()
	own, _ := t.(StatsSource)
	return s.Start(ctx, Target{
		Name: entry.Name, MetricsURL: t.MetricsURL(), ContainerID: t.ContainerID(), Stats: own,
		CPULimit: limits.CPUs, MemoryLimitBytes: limits.MemoryMiB << 20,
		Threads: entry.Threads, Memory: entry.Memory,
	})
}

var _ bench.Recorder = (*Sampler)(nil)

// Start starts recording t now, warm-up included, until Stop or until ctx
// ends. The attack's clock reads zero at Start until SetT0 says otherwise.
func (s *Sampler) Start(ctx context.Context, t Target) *Recording {
	ctx, cancel := context.WithCancel(ctx)
	now := time.Now()
	r := &Recording{target: t, interval: s.interval, cancel: cancel, t0: now, timeline: newTimeline()}
	if t.MetricsURL != "" {
		sc := &scraper{client: s.http, url: t.MetricsURL}
		r.wg.Go(func() { r.scrapeEvery(ctx, sc) })
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

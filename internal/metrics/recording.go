package metrics

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// Recording is one target's sampling in progress: a goroutine scraping its
// metrics endpoint every interval, one following its container's stats
// and, for a JVM, one reading its perf counters where the scrape lacks them.
// Its methods are safe for concurrent use.
type Recording struct {
	target   Target
	interval time.Duration
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	mu             sync.Mutex
	t0             time.Time
	timeline       *timeline
	scrapeFailures []time.Time
	statsFailures  int
	lastErr        error
	firstText      string
	lastText       string

	stopOnce sync.Once
	result   bench.RecordingResult
}

var _ bench.Recording = (*Recording)(nil)

// SetT0 sets the attack clock's zero, the first measured request. Samples
// already taken are re-based to it.
func (r *Recording) SetT0(t0 time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.t0 = t0
}

// Latest is the latest sample of a curated series, summed over its labels,
// and when it was taken (the earliest of its label sets' latest, should
// they differ); false before any was taken.
func (r *Recording) Latest(name string) (at time.Time, value float64, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.timeline.latest(name)
}

// Stop ends sampling, abandoning a scrape in flight (waiting at most until
// ctx ends), and summarises the series over the stages as measured (the
// warm-up, when not nil, first): curated series on the attack's clock sorted
// by name and labels, the first ("start") and last ("end") successful
// scrape, resources per stage, and the failures. Later calls return the
// first call's result.
func (r *Recording) Stop(ctx context.Context, warmup *bench.StageResult, stages []bench.StageResult) bench.RecordingResult {
	r.stopOnce.Do(func() {
		r.cancel()
		done := make(chan struct{})
		go func() { r.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
		}
		r.result = r.summarize(warmup, stages)
	})
	return r.result
}

func (r *Recording) summarize(warmup *bench.StageResult, stages []bench.StageResult) bench.RecordingResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := bench.RecordingResult{
		Series:         r.timeline.series(r.t0),
		ScrapeFailures: len(r.scrapeFailures),
		StatsFailures:  r.statsFailures,
	}
	if r.lastErr != nil {
		res.LastError = r.lastErr.Error()
	}
	if r.firstText != "" {
		res.Expositions = []bench.Exposition{{At: "start", Text: r.firstText}, {At: "end", Text: r.lastText}}
	}
	failures := make([]float64, len(r.scrapeFailures))
	for i, at := range r.scrapeFailures {
		failures[i] = offset(at, r.t0)
	}
	res.Resources = Summarize(res.Series, Sources{Threads: r.target.Threads, Memory: r.target.Memory}, failures, warmup, stages)
	return res
}

// scrapeEvery scrapes at once and then every interval until ctx ends;
// it closes tried once the first scrape has been tried.
func (r *Recording) scrapeEvery(ctx context.Context, sc *scraper, tried chan<- struct{}) {
	ticker := time.NewTicker(r.interval)
	defer ticker.Stop()
	r.scrape(ctx, sc)
	close(tried)
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		r.scrape(ctx, sc)
	}
}

// scrapeCovers reports whether the scrape has given the series the JVM's
// perf counters would (covering): they are then not read.
func (r *Recording) scrapeCovers() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.timeline.has(covering())
}

// scrapeTimeouts is how many intervals a scrape may take. A JVM whose one
// CPU is saturated by 150 clients renders its exposition in seconds: at 3
// intervals, clean-clone runs of the suite (its CPUs busy) twice left a
// 3 s stage without any thread sample.
const scrapeTimeouts = 5

// scrape takes one sample, within scrapeTimeouts intervals, filed under the
// instant it began.
func (r *Recording) scrape(loop context.Context, sc *scraper) {
	at := time.Now()
	// A target whose pool is saturated serves its metrics endpoint from the
	// same queue as the load (Tomcat): a late sample is worth more than a
	// stage without any, so a scrape may take five intervals.
	ctx, cancel := context.WithTimeout(loop, scrapeTimeouts*r.interval)
	defer cancel()
	text, samples, err := sc.scrape(ctx)
	if loop.Err() != nil {
		return // stopped mid-scrape: not a failure, and not a sample
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.scrapeFailures = append(r.scrapeFailures, at)
		r.lastErr = fmt.Errorf("target %s: %w", r.target.Name, err)
		return
	}
	r.timeline.add(at, samples)
	if r.firstText == "" {
		r.firstText = text
	}
	r.lastText = text
}

// fileStats records a container stats sample or failure.
func (r *Recording) fileStats(at time.Time, samples []Sample, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.statsFailures++
		r.lastErr = fmt.Errorf("target %s: %w", r.target.Name, err)
		return
	}
	r.timeline.add(at, samples)
}

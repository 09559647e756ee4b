package metrics

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// Recording is one target's sampling in progress: a goroutine scraping its
// metrics endpoint every interval and one following its container's stats.
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
	firstAt        time.Time
	lastText       string
	lastAt         time.Time

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

// scrapeEvery begins a scrape at once and then every interval until ctx
// ends, each without waiting for the ones before to answer: a service
// whose metrics endpoint shares the queue of its load (Actuator on
// Tomcat's port) took 2 to 5 s to answer at 150 clients on shared CPUs,
// and scrapes one after another then began one every 3 to 5 s, leaving a
// 2 s stage without any (three of the suite's orders tests at once). The
// timeout bounds how many are in flight: scrapeTimeouts, and one
// beginning. It returns when every scrape it began has.
func (r *Recording) scrapeEvery(ctx context.Context, sc *scraper) {
	var inFlight sync.WaitGroup
	defer inFlight.Wait()
	ticker := time.NewTicker(r.interval)
	defer ticker.Stop()
	for {
		inFlight.Go(func() { r.scrape(ctx, sc) })
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// scrapeTimeouts is how many intervals a scrape may take: a late sample
// is worth more than a stage without any. A JVM whose one CPU is saturated
// by 150 clients renders its exposition in seconds.
const scrapeTimeouts = 5

// scrape takes one sample, within scrapeTimeouts intervals, filed under the
// instant it began (the server computes it no earlier). One abandoned
// because sampling stopped is neither a sample nor a failure; one that
// answered or failed by itself is filed even if sampling stopped meanwhile.
func (r *Recording) scrape(loop context.Context, sc *scraper) {
	at := time.Now()
	ctx, cancel := context.WithTimeout(loop, scrapeTimeouts*r.interval)
	defer cancel()
	text, samples, err := sc.scrape(ctx)
	if err != nil && loop.Err() != nil && errors.Is(err, context.Canceled) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.scrapeFailures = append(r.scrapeFailures, at)
		r.lastErr = fmt.Errorf("target %s: %w", r.target.Name, err)
		return
	}
	r.timeline.add(at, samples)
	// Scrapes may answer out of order: the expositions kept are those of
	// the first and the last begun.
	if r.firstText == "" || at.Before(r.firstAt) {
		r.firstText, r.firstAt = text, at
	}
	if !at.Before(r.lastAt) {
		r.lastText, r.lastAt = text, at
	}
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

package metrics

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// Recording is one target's sampling in progress. Its methods are safe for
// concurrent use.
type Recording struct {
	target   Target
	interval time.Duration
	started  time.Time
	scraper  *scraper     // nil without a metrics URL
	stats    *statsReader // nil without a container; used by run only
	cancel   context.CancelFunc
	done     chan struct{}

	mu             sync.Mutex
	t0             time.Time
	timeline       *timeline
	scrapeFailures []time.Time
	statsFailures  int
	lastErr        error
	firstText      string
	lastText       string

	stopOnce sync.Once
	result   Result
}

// Result is what a recording kept.
type Result struct {
	Series         []bench.Series         // curated series on the attack's clock, sorted by name and labels
	Expositions    []bench.Exposition     // the first ("start") and last ("end") successful scrape
	Resources      []bench.StageResources // one per stage, the warm-up first
	ScrapeFailures int                    // scrapes that failed: refused, timed out, not 200, not parseable
	StatsFailures  int                    // container stats reads that failed
	LastError      string                 // the last failure's message, for a warning; "" without failures
}

// SetT0 sets the attack clock's zero, the first measured request. Samples
// already taken are re-based to it.
func (r *Recording) SetT0(t0 time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.t0 = t0
}

// Stop ends sampling, waiting for a sample in flight to be abandoned (or for
// ctx to end), and summarises the series over the stages as measured (the
// warm-up, when not nil, first). Later calls return the first call's Result.
func (r *Recording) Stop(ctx context.Context, warmup *bench.StageResult, stages []bench.StageResult) Result {
	r.stopOnce.Do(func() {
		r.cancel()
		select {
		case <-r.done:
		case <-ctx.Done():
		}
		r.result = r.summarize(warmup, stages)
	})
	return r.result
}

func (r *Recording) summarize(warmup *bench.StageResult, stages []bench.StageResult) Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := Result{
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
	res.Resources = Summarize(res.Series, failures, warmup, stages)
	return res
}

// run samples at once and then every interval until ctx ends.
func (r *Recording) run(ctx context.Context) {
	defer close(r.done)
	ticker := time.NewTicker(r.interval)
	defer ticker.Stop()
	for {
		r.sample(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// sample scrapes and reads stats side by side, each within one interval,
// and files both under the instant the tick began.
func (r *Recording) sample(loop context.Context) {
	at := time.Now()
	ctx, cancel := context.WithTimeout(loop, r.interval)
	defer cancel()
	var text string
	var scraped, stats []Sample
	var scrapeErr, statsErr error
	var wg sync.WaitGroup
	if r.scraper != nil {
		wg.Go(func() { text, scraped, scrapeErr = r.scraper.scrape(ctx) })
	}
	if r.stats != nil {
		wg.Go(func() { stats, statsErr = r.stats.read(ctx, at) })
	}
	wg.Wait()
	if loop.Err() != nil {
		return // stopped mid-sample: not a failure, and not a sample
	}
	r.file(at, text, append(scraped, stats...), scrapeErr, statsErr)
}

// file records one tick's samples and failures.
func (r *Recording) file(at time.Time, text string, samples []Sample, scrapeErr, statsErr error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timeline.add(at, samples)
	if scrapeErr != nil {
		r.scrapeFailures = append(r.scrapeFailures, at)
		r.lastErr = fmt.Errorf("target %s: %w", r.target.Name, scrapeErr)
	} else if text != "" {
		if r.firstText == "" {
			r.firstText = text
		}
		r.lastText = text
	}
	if statsErr != nil {
		r.statsFailures++
		r.lastErr = fmt.Errorf("target %s: %w", r.target.Name, statsErr)
	}
}

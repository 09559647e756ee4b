package database

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// DefaultSampleInterval is how often a recording reads a server's figures.
const DefaultSampleInterval = time.Second

// sampleTimeouts is how many intervals one sample may take: a server busy
// with a run's load answers late, and a late sample is worth more than a
// stage without any (at 3 intervals of 250 ms, 8 samples of a 4 s stage
// timed out on a machine the test suite saturated).
const sampleTimeouts = 8

// Recording is a server's sampling during one target's attack: a goroutine
// reading the server's figures by SQL every interval, on a connection of
// its own. Its methods are safe for concurrent use. It implements
// bench.DatabaseRecording.
type Recording struct {
	db       *sql.DB // one connection, the recording's own
	read     func(ctx context.Context, db *sql.DB) (sample, error)
	title    string
	interval time.Duration
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	mu       sync.Mutex
	t0       time.Time
	taken    []takenSample
	failures int
	lastErr  error

	stopOnce sync.Once
	result   bench.DatabaseRecordingResult
}

var _ bench.DatabaseRecording = (*Recording)(nil)

// startRecording starts sampling the server of flavor f at dsn every
// interval, until ctx ends or Stop. The attack's clock reads 0 now until
// SetT0 says otherwise.
func startRecording(ctx context.Context, f flavor, dsn string, interval time.Duration) *Recording {
	r := newRecording(f.sample, f.title, interval)
	db, err := sql.Open(f.driver, dsn)
	if err != nil {
		r.fail(err)
		return r
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	r.db = db
	r.start(ctx)
	return r
}

// newRecording is a recording reading samples with read, not started.
func newRecording(read func(context.Context, *sql.DB) (sample, error), title string, interval time.Duration) *Recording {
	return &Recording{read: read, title: title, interval: interval, t0: time.Now(), cancel: func() {}}
}

// start starts the sampling goroutine, which ends with ctx or Stop.
func (r *Recording) start(ctx context.Context) {
	ctx, r.cancel = context.WithCancel(ctx)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.sampleEvery(ctx)
	}()
}

// SetT0 sets the attack clock's zero, the first measured request. Samples
// already taken are re-based to it.
func (r *Recording) SetT0(t0 time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.t0 = t0
}

// Stop ends sampling, abandoning a sample in flight (waiting at most until
// ctx ends), and summarises the samples per stage, the warm-up (when not
// nil) first. Later calls return the first call's result.
func (r *Recording) Stop(ctx context.Context, warmup *bench.StageResult, stages []bench.StageResult) bench.DatabaseRecordingResult {
	r.stopOnce.Do(func() {
		r.cancel()
		done := make(chan struct{})
		go func() { r.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
		}
		if r.db != nil {
			r.db.Close()
		}
		r.result = r.summarize(warmup, stages)
	})
	return r.result
}

// summarize is the recording's result.
func (r *Recording) summarize(warmup *bench.StageResult, stages []bench.StageResult) bench.DatabaseRecordingResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := bench.DatabaseRecordingResult{Series: buildSeries(r.taken, r.t0), Failures: r.failures}
	res.Stages = Summarize(res.Series, warmup, stages)
	if r.lastErr != nil {
		res.LastError = r.lastErr.Error()
	}
	return res
}

// sampleEvery samples at once and then every interval until ctx ends.
func (r *Recording) sampleEvery(ctx context.Context) {
	ticker := time.NewTicker(r.interval)
	defer ticker.Stop()
	for {
		r.sampleOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// sampleOnce takes one sample, within sampleTimeouts intervals, filed
// under the instant it began. A sample cut short by Stop is neither a
// sample nor a failure.
func (r *Recording) sampleOnce(loop context.Context) {
	at := time.Now()
	ctx, cancel := context.WithTimeout(loop, sampleTimeouts*r.interval)
	defer cancel()
	s, err := r.read(ctx, r.db)
	if loop.Err() != nil {
		return
	}
	if err != nil {
		r.fail(err)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.taken = append(r.taken, takenSample{at: at, sample: s})
}

// fail counts a failed sample and keeps its error.
func (r *Recording) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures++
	r.lastErr = fmt.Errorf("%s: %w", r.title, err)
}

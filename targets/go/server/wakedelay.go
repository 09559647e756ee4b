package server

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// wakeDelayName is the summary of how late a goroutine ran again after a
// sleep ended, which every target exposes (targets/CONTRACT.md).
const wakeDelayName = "threadbench_wake_delay_seconds"

// wakePeriod is how long the probe sleeps each time.
const wakePeriod = 10 * time.Millisecond

// wakeDelay times a goroutine's wake-ups: one goroutine sleeps wakePeriod
// over and over, and how long past the period it was running again is
// the wait a woken goroutine had for a P (the runtime's run queues, then
// the OS's CPU). The Java target times its requests' kind of thread the
// same way (a carrier's queue on virtual threads). It costs one short
// wake-up every wakePeriod.
type wakeDelay struct {
	desc  *prometheus.Desc
	wakes atomic.Int64
	late  atomic.Int64 // nanoseconds, summed
	stop  chan struct{}
	once  sync.Once
}

func newWakeDelay() *wakeDelay {
	return &wakeDelay{
		desc: prometheus.NewDesc(wakeDelayName,
			"How late a goroutine ran again after a sleep of "+wakePeriod.String()+" ended.", nil, nil),
		stop: make(chan struct{}),
	}
}

// start probes in the background until close.
func (w *wakeDelay) start() { go w.probe() }

// close stops the probe; closing twice does nothing.
func (w *wakeDelay) close() { w.once.Do(func() { close(w.stop) }) }

func (w *wakeDelay) probe() {
	timer := time.NewTimer(wakePeriod)
	defer timer.Stop()
	for {
		start := time.Now()
		timer.Reset(wakePeriod)
		select {
		case <-w.stop:
			return
		case <-timer.C:
		}
		w.record(time.Since(start) - wakePeriod)
	}
}

// record counts one wake-up that ran late past its period; an early
// reading counts 0.
func (w *wakeDelay) record(late time.Duration) {
	w.wakes.Add(1)
	w.late.Add(int64(max(0, late)))
}

// Describe implements prometheus.Collector.
func (w *wakeDelay) Describe(ch chan<- *prometheus.Desc) { ch <- w.desc }

// Collect implements prometheus.Collector: a summary of count and sum,
// without quantiles.
func (w *wakeDelay) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstSummary(w.desc, uint64(w.wakes.Load()),
		time.Duration(w.late.Load()).Seconds(), nil)
}

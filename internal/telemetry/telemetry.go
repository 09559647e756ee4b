// Package telemetry keeps the daemon's own Prometheus metrics, derived from
// the runner's progress events: runs by final status, the queue, requests
// sent, and how long targets take to build and start.
package telemetry

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/threadbench/threadbench/internal/bench"
)

// Metrics are the daemon's metrics.
type Metrics struct {
	runs     *prometheus.CounterVec
	requests *prometheus.CounterVec
	build    prometheus.Histogram
	start    prometheus.Histogram

	mu     sync.Mutex
	phases map[string]phaseMark // run/target -> the phase it is in and since when
}

type phaseMark struct {
	phase bench.Phase
	at    time.Time
}

// New registers the daemon's metrics on reg. queueLength and running report
// the queue's state when scraped.
func New(reg prometheus.Registerer, queueLength func() int, running func() bool) *Metrics {
	m := &Metrics{
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "threadbench_runs_total", Help: "Runs that reached a final status since the daemon started, by status.",
		}, []string{"status"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "threadbench_requests_sent_total", Help: "Measured requests sent to targets, by target.",
		}, []string{"target"}),
		build: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "threadbench_target_build_seconds", Help: "Time to build (or find cached) a target's image.",
			Buckets: []float64{0.1, 0.5, 1, 5, 15, 30, 60, 120, 300},
		}),
		start: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "threadbench_target_start_seconds", Help: "Time from starting a target's container to it being healthy.",
			Buckets: []float64{0.1, 0.5, 1, 2, 5, 10, 20, 40, 60},
		}),
		phases: map[string]phaseMark{},
	}
	queue := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "threadbench_queue_length", Help: "Runs waiting in the queue, not counting the running one.",
	}, func() float64 { return float64(queueLength()) })
	active := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "threadbench_run_active", Help: "1 while a run is executing.",
	}, func() float64 {
		if running() {
			return 1
		}
		return 0
	})
	reg.MustRegister(m.runs, m.requests, m.build, m.start, queue, active,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, s := range bench.RunStatuses {
		if s.Finished() {
			m.runs.WithLabelValues(string(s)) // present at zero before the first run
		}
	}
	return m
}

// Observe updates the metrics from one progress event.
func (m *Metrics) Observe(ev bench.Event) {
	switch ev.Type {
	case bench.EventRun:
		if ev.RunStatus.Finished() {
			m.runs.WithLabelValues(string(ev.RunStatus)).Inc()
		}
	case bench.EventSecond:
		m.requests.WithLabelValues(ev.Target).Add(float64(ev.Second.Stats.Requests))
	case bench.EventTarget:
		m.phase(ev)
	}
}

// phase times the building and starting phases from one phase change to the next.
func (m *Metrics) phase(ev bench.Event) {
	key := ev.RunID + "/" + ev.Target
	m.mu.Lock()
	defer m.mu.Unlock()
	prev, ok := m.phases[key]
	if ok {
		took := ev.Time.Sub(prev.at).Seconds()
		switch prev.phase {
		case bench.PhaseBuilding:
			m.build.Observe(took)
		case bench.PhaseStarting:
			if ev.Phase != bench.PhaseStopping { // a failed start goes straight to stopping
				m.start.Observe(took)
			}
		}
	}
	if ev.Phase == bench.PhaseDone {
		delete(m.phases, key)
		return
	}
	m.phases[key] = phaseMark{phase: ev.Phase, at: ev.Time}
}

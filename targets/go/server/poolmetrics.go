package server

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// poolDesc describes one series of the database pool, under HikariCP's
// name as Micrometer exposes it, so that the orchestrator reads the Go and
// Java targets alike; pool="threadbench" is the Java pool's name.
func poolDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, nil, prometheus.Labels{"pool": "threadbench"})
}

// The pool's series.
var (
	poolActive     = poolDesc("hikaricp_connections_active", "Connections in use.")
	poolIdle       = poolDesc("hikaricp_connections_idle", "Connections open and not in use.")
	poolPending    = poolDesc("hikaricp_connections_pending", "Requests waiting for a connection now.")
	poolTotal      = poolDesc("hikaricp_connections", "Connections open, in use or not.")
	poolMax        = poolDesc("hikaricp_connections_max", "Connections the pool holds at most.")
	poolMin        = poolDesc("hikaricp_connections_min", "Connections the pool keeps open at least.")
	poolTimeouts   = poolDesc("hikaricp_connections_timeout_total", "Requests that got no connection in time.")
	poolAcquire    = poolDesc("hikaricp_connections_acquire_seconds", "Time taken to get a connection, timeouts included.")
	poolAcquireMax = poolDesc("hikaricp_connections_acquire_seconds_max", "The longest time taken to get a connection over the last minute or so.")
	poolUsage      = poolDesc("hikaricp_connections_usage_seconds", "Time a connection was held, from taken to given back.")
	poolUsageMax   = poolDesc("hikaricp_connections_usage_seconds_max", "The longest time a connection was held over the last minute or so.")
)

// poolCollector exposes a database's pool: database/sql's statistics and
// what the database counts itself.
type poolCollector struct{ d *database }

// Describe sends the pool's series.
func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, desc := range []*prometheus.Desc{poolActive, poolIdle, poolPending, poolTotal, poolMax, poolMin,
		poolTimeouts, poolAcquire, poolAcquireMax, poolUsage, poolUsageMax} {
		ch <- desc
	}
}

// Collect reads the pool now.
func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	stats := c.d.db.Stats()
	gauge := func(desc *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v)
	}
	gauge(poolActive, float64(stats.InUse))
	gauge(poolIdle, float64(stats.Idle))
	gauge(poolPending, float64(c.d.pending.Load()))
	gauge(poolTotal, float64(stats.OpenConnections))
	gauge(poolMax, float64(stats.MaxOpenConnections))
	gauge(poolMin, 0) // connections are opened on demand
	ch <- prometheus.MustNewConstMetric(poolTimeouts, prometheus.CounterValue, float64(c.d.timeouts.Load()))
	count, sum, longest := c.d.acquired.snapshot()
	ch <- prometheus.MustNewConstSummary(poolAcquire, count, sum.Seconds(), nil)
	gauge(poolAcquireMax, longest.Seconds())
	count, sum, longest = c.d.used.snapshot()
	ch <- prometheus.MustNewConstSummary(poolUsage, count, sum.Seconds(), nil)
	gauge(poolUsageMax, longest.Seconds())
}

// timer is a Micrometer Timer as Prometheus reads it: a count and a sum
// since start, and a max over a sliding window. The zero value is ready.
type timer struct {
	mu      sync.Mutex
	count   uint64
	sum     time.Duration
	longest windowMax
}

// record counts one duration.
func (t *timer) record(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.count++
	t.sum += d
	t.longest.record(time.Now(), d)
}

// snapshot returns the count, the sum and the window's max.
func (t *timer) snapshot() (count uint64, sum, longest time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.count, t.sum, t.longest.read(time.Now())
}

// Micrometer's window for a Timer's max in a Prometheus registry: its
// step (a minute) split into three buffers, each reset in turn.
const (
	maxBuffers    = 3
	maxRotateStep = 20 * time.Second
)

// windowMax is Micrometer's TimeWindowMax: every value goes into each of
// the buffers, the oldest of which is read and, every maxRotateStep,
// emptied to become the newest. The max read covers the last 40 to 60 s.
type windowMax struct {
	buffers [maxBuffers]time.Duration
	current int       // the buffer read
	rotated time.Time // when current was last moved on; zero before any use
}

// record takes d into every buffer.
func (w *windowMax) record(now time.Time, d time.Duration) {
	w.rotate(now)
	for i := range w.buffers {
		w.buffers[i] = max(w.buffers[i], d)
	}
}

// read returns the max of the window ending now.
func (w *windowMax) read(now time.Time) time.Duration {
	w.rotate(now)
	return w.buffers[w.current]
}

// rotate empties one buffer for each whole step passed since the last
// rotation, all of them when the whole window has passed.
func (w *windowMax) rotate(now time.Time) {
	if w.rotated.IsZero() {
		w.rotated = now
		return
	}
	since := now.Sub(w.rotated)
	if since >= maxBuffers*maxRotateStep {
		w.buffers, w.current = [maxBuffers]time.Duration{}, 0
		w.rotated = now.Add(-since % maxRotateStep)
		return
	}
	for ; since >= maxRotateStep; since -= maxRotateStep {
		w.buffers[w.current] = 0
		w.current = (w.current + 1) % maxBuffers
		w.rotated = w.rotated.Add(maxRotateStep)
	}
}

package server

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// requestBuckets are the request-duration histogram's upper bounds in
// seconds, from 1ms to the longest request the contract allows (60s), finer
// around the 100-300ms that the sleeping endpoints usually take.
var requestBuckets = []float64{
	0.001, 0.002, 0.005, 0.01, 0.02, 0.05,
	0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 0.75,
	1, 2, 5, 10, 20, 30, 60,
}

// notFoundURI is the uri label of requests no route matched, so that
// scanners cannot blow up the label's cardinality (Micrometer does the same).
const notFoundURI = "NOT_FOUND"

// inflightName is the gauge of requests being handled that every target
// exposes, labelled by what runs their handler; here always a goroutine.
const inflightName = "threadbench_inflight_requests"

// metrics is the target's own Prometheus registry: the Go runtime and
// process collectors, the request-duration histogram and the in-flight
// gauge every target exposes under the same name and labels.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.HistogramVec
	inflight atomic.Int64 // requests being handled, health checks and scrapes left out
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "http_server_requests_seconds",
			Help:    "Duration of HTTP server requests.",
			Buckets: requestBuckets,
		}, []string{"method", "uri", "status"}),
	}
	inflight := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        inflightName,
		Help:        "Requests being handled, by the kind of thread running their handler.",
		ConstLabels: prometheus.Labels{"thread": "goroutine"},
	}, func() float64 { return float64(m.inflight.Load()) })
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests,
		inflight,
	)
	return m
}

// countInflight counts the requests next is handling, but for health checks,
// scrapes and profiles, so that a scrape does not count itself. Each request runs on
// its own goroutine (its connection's), so this is also the number of
// goroutines handling requests; go_goroutines counts more: net/http's
// background reader of each busy connection, idle connections and the
// runtime's own.
func (m *metrics) countInflight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == MetricsPath || r.URL.Path == healthPath || isProfile(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		m.inflight.Add(1)
		defer m.inflight.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// routeFunc is a handler that returns the status it wrote, so that
// instrumenting it needs no wrapping ResponseWriter.
type routeFunc func(w http.ResponseWriter, r *http.Request) int

// instrument observes fn's duration in the histogram under the uri label.
func (m *metrics) instrument(uri string, fn routeFunc) http.HandlerFunc {
	observers := m.requests.MustCurryWith(prometheus.Labels{"uri": uri})
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		status := fn(w, r)
		observers.WithLabelValues(methodLabel(r.Method), statusLabel(status)).Observe(time.Since(start).Seconds())
	}
}

// serve is the exposition endpoint, in the text format by default.
func (m *metrics) serve() routeFunc {
	exposition := promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return func(w http.ResponseWriter, r *http.Request) int {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		exposition.ServeHTTP(rec, r)
		return rec.status
	}
}

// statusRecorder remembers the status a handler wrote. Only the metrics
// endpoint, which is not ours to change, needs it.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

// WriteHeader records the status and passes it on.
func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// methodLabel bounds the method label to the standard methods.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return "OTHER"
}

// statusLabel formats a status without allocating for the usual ones.
func statusLabel(status int) string {
	switch status {
	case http.StatusOK:
		return "200"
	case http.StatusBadRequest:
		return "400"
	case http.StatusNotFound:
		return "404"
	case http.StatusMethodNotAllowed:
		return "405"
	}
	return strconv.Itoa(status)
}

package server

import (
	"cmp"
	"encoding/json"
	"io/fs"
	"log"
	"net/http"
	"os"
	"sync"
	"time"
)

// MetricsPath is where the Go target serves its Prometheus exposition.
const MetricsPath = "/metrics"

// healthPath is the contract's health check.
const healthPath = "/health"

// infoPath is where the target describes itself and its runtime settings.
const infoPath = "/info"

// Handler serves the contract's endpoints. Close releases the connections
// it keeps to the downstream service and the database.
type Handler struct {
	http.Handler
	downstream *downstream
	database   *database // nil: none configured
	wake       *wakeDelay
}

// Close stops the wake-up probe, closes the idle downstream connections
// and the database's pool.
// Call it once the server has stopped serving.
func (h *Handler) Close() {
	h.wake.close()
	h.downstream.close()
	if h.database != nil {
		h.database.close()
	}
}

// Option configures a Handler.
type Option func(*handler)

// WithDownstream sets the base URL of the downstream service that
// /api/fanout and /api/downstream call (DOWNSTREAM_URL); without it they
// answer 503.
func WithDownstream(baseURL string) Option {
	return func(h *handler) { h.downstream = newDownstream(baseURL) }
}

// WithDatabase gives /api/db a pool of cfg.Pool connections to the
// database cfg describes (DB_*), made as requests need them; without it, or
// with a zero Kind, /api/db answers 503.
func WithDatabase(cfg DBConfig) Option {
	return func(h *handler) {
		if cfg.Kind != "" {
			h.database = openDatabase(cfg)
		}
	}
}

// WithWorkers bounds the requests the work endpoints serve at once
// (WORKERS), as Tomcat's pool bounds a Java target's: the rest wait for a
// worker, holding their connection. 0 leaves them unbounded.
func WithWorkers(n int) Option {
	return func(h *handler) {
		if n > 0 {
			h.workers = make(chan struct{}, n)
		}
	}
}

// handler serves the contract's endpoints for one target name.
type handler struct {
	workers    chan struct{} // nil: unbounded
	target     string
	targetJSON []byte // the target name, JSON-encoded once
	metrics    *metrics
	root       fs.FS // where /info reads the cgroup's memory limit
	downstream *downstream
	bulkheads  bulkheads
	database   *database // nil: none configured
}

// NewHandler returns the contract's endpoints for the target name reported
// in every response. Each handler has its own metrics registry and its own
// downstream client, so tests can mount several.
func NewHandler(target string, opts ...Option) *Handler {
	targetJSON, err := json.Marshal(target)
	if err != nil {
		panic(err) // a string always marshals
	}
	h := &handler{target: target, targetJSON: targetJSON, metrics: newMetrics(),
		root: os.DirFS("/"), downstream: newDownstream("")}
	for _, opt := range opts {
		opt(h)
	}
	if h.database != nil {
		h.metrics.registry.MustRegister(poolCollector{h.database})
	}
	wake := newWakeDelay()
	h.metrics.registry.MustRegister(wake)
	wake.start()
	return &Handler{Handler: h.routes(), downstream: h.downstream, database: h.database, wake: wake}
}

// routes mounts every endpoint, counting the requests in flight.
func (h *handler) routes() http.Handler {
	mux := http.NewServeMux()
	h.route(mux, healthPath, health)
	h.route(mux, infoPath, h.serveInfo)
	h.route(mux, "/api/light", h.pooled(h.light))
	h.route(mux, "/api/heavy", h.pooled(h.serveHeavy))
	h.route(mux, "/api/cpu", h.pooled(h.cpu))
	h.route(mux, "/api/native", h.pooled(h.sleeper("native", nativeSleep)))
	h.route(mux, "/api/synchronized", h.pooled(h.sleeper("synchronized", lockedSleep)))
	// Go has one kind of lock: the counterpart of Java's ReentrantLock is
	// the same sync.Mutex.
	h.route(mux, "/api/lock", h.pooled(h.sleeper("lock", lockedSleep)))
	h.route(mux, "/api/fanout", h.pooled(h.serveFanout))
	h.route(mux, "/api/downstream", h.pooled(h.serveDownstream))
	h.route(mux, "/api/db", h.pooled(h.serveDB))
	h.route(mux, MetricsPath, h.metrics.serve())
	routeProfiles(mux)
	mux.HandleFunc("/", h.metrics.instrument(notFoundURI, notFound))
	return h.metrics.countInflight(mux)
}

// pooled runs fn on one of the workers, waiting for one to be free, when
// the handler has a bounded pool.
func (h *handler) pooled(fn routeFunc) routeFunc {
	if h.workers == nil {
		return fn
	}
	return func(w http.ResponseWriter, r *http.Request) int {
		select {
		case h.workers <- struct{}{}:
		case <-r.Context().Done():
			return 0 // the client left while waiting; nothing to answer
		}
		defer func() { <-h.workers }()
		return fn(w, r)
	}
}

// route mounts fn for GET (and so HEAD) on path, and a JSON 405 for any
// other method; the method pattern is the more specific, so it wins.
func (h *handler) route(mux *http.ServeMux, path string, fn routeFunc) {
	mux.HandleFunc("GET "+path, h.metrics.instrument(path, fn))
	mux.HandleFunc(path, h.metrics.instrument(path, methodNotAllowed))
}

var healthBody = []byte(`{"status":"UP"}`)

func health(w http.ResponseWriter, _ *http.Request) int {
	writeJSON(w, http.StatusOK, healthBody)
	return http.StatusOK
}

func (h *handler) light(w http.ResponseWriter, r *http.Request) int {
	writeWork(w, r, h.targetJSON, "light", 0, nil)
	return http.StatusOK
}

func (h *handler) cpu(w http.ResponseWriter, r *http.Request) int {
	work, err := workParam.parse(r.URL.RawQuery)
	if err != nil {
		return writeError(w, http.StatusBadRequest, err.Error())
	}
	res := cpuResult{work: work, result: cpuWork(work)}
	writeWork(w, r, h.targetJSON, "cpu", 0, &res)
	return http.StatusOK
}

// sleeper returns the handler of an endpoint that blocks for the requested
// duration with sleep.
func (h *handler) sleeper(endpoint string, sleep func(time.Duration)) routeFunc {
	return func(w http.ResponseWriter, r *http.Request) int {
		ms, err := durationParam.parse(r.URL.RawQuery)
		if err != nil {
			return writeError(w, http.StatusBadRequest, err.Error())
		}
		sleep(time.Duration(ms) * time.Millisecond)
		writeWork(w, r, h.targetJSON, endpoint, ms, nil)
		return http.StatusOK
	}
}

// serveHeavy sleeps duration ms, times in a row, then, with log=1, writes
// a line through the standard logger (to stderr, under its mutex), as a
// handler that logs each request does. durationMs answers the time slept.
func (h *handler) serveHeavy(w http.ResponseWriter, r *http.Request) int {
	q := r.URL.RawQuery
	ms, errDuration := durationParam.parse(q)
	times, errTimes := timesParam.parse(q)
	logged, errLog := logParam.parse(q)
	if err := cmp.Or(errDuration, errTimes, errLog); err != nil {
		return writeError(w, http.StatusBadRequest, err.Error())
	}
	for range times {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	if logged == 1 {
		log.Printf("heavy: slept %d ms x %d: Done", ms, times)
	}
	writeWork(w, r, h.targetJSON, "heavy", ms*times, nil)
	return http.StatusOK
}

// lockedSleep sleeps holding a lock made for this request, the counterpart
// of Java's synchronized block on a new monitor. Nobody contends for it:
// what it shows is whether holding a lock across a blocking call costs the
// runtime a thread. In Go it does not; the goroutine parks, lock and all.
func lockedSleep(d time.Duration) {
	var mu sync.Mutex
	mu.Lock()
	defer mu.Unlock()
	time.Sleep(d)
}

func notFound(w http.ResponseWriter, r *http.Request) int {
	return writeError(w, http.StatusNotFound, "no endpoint at "+quote(r.URL.Path))
}

func methodNotAllowed(w http.ResponseWriter, r *http.Request) int {
	w.Header().Set("Allow", "GET, HEAD")
	return writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed, use GET")
}

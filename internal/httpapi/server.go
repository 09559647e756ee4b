// Package httpapi is the daemon's HTTP layer: the routes of api/openapi.yaml
// on a chi router, requests validated against that document, domain errors
// turned into RFC 9457 problem documents, and run progress as Server-Sent
// Events. It speaks to the run queue and the store through the interfaces
// below, so that it can be tested with fakes and wired to anything.
package httpapi

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/bench"
)

// Runs is the run queue (implemented by internal/runner).
type Runs interface {
	// Submit validates the spec (EINVALID with Field) and stores the run
	// queued; EUNAVAILABLE when the queue is full.
	Submit(ctx context.Context, spec bench.RunSpec) (*bench.Run, error)
	// Cancel stops a queued or running run; ENOTFOUND, or ECONFLICT if it
	// has already finished.
	Cancel(ctx context.Context, id string) (*bench.Run, error)
	// Subscribe returns the run's progress events; ENOTFOUND for unknown runs.
	// The channel is closed when the run ends or ctx is done.
	Subscribe(ctx context.Context, id string) (<-chan bench.Event, error)
	// QueueLength returns the number of runs waiting.
	QueueLength() int
}

// Store is the run history the API reads.
type Store interface {
	bench.RunStore
	bench.SeriesStore
	bench.ArtifactStore
}

// Defaults of Config.
const (
	DefaultMaxBodyBytes = 1 << 20
	DefaultKeepAlive    = 15 * time.Second
	DefaultCancelWait   = 2 * time.Second
)

// Config is what a Server needs. Runs, Store and Compare are required.
type Config struct {
	Runs     Runs
	Store    Store
	Targets  []bench.TargetInfo
	Profiles []bench.Profile
	// Engines are the engine names a spec may give (local and the
	// configured ones), and HostCPUs and HostMemoryMiB the most a target
	// may get; the served document says them (0 leaves the document's).
	Engines       []string
	HostCPUs      float64
	HostMemoryMiB int64
	Compare       func(base, head *bench.Run, noiseThreshold float64) bench.Comparison
	// Gatherer is the daemon's own metrics for GET /metrics;
	// prometheus.DefaultGatherer when nil.
	Gatherer prometheus.Gatherer
	// Logger receives the access log and the causes of 500s; slog.Default() when nil.
	Logger *slog.Logger
	// MaxBodyBytes limits request bodies; DefaultMaxBodyBytes when 0.
	MaxBodyBytes int64
	// KeepAlive is the interval of comments on an idle event stream;
	// DefaultKeepAlive when 0.
	KeepAlive time.Duration
	// AllowedHosts are the Host header values the server answers: "host:port"
	// for that port, "host" for any. Requests naming another host are
	// refused (DNS rebinding). The loopback names on any port when empty.
	AllowedHosts []string
	// Token, when set, is the bearer token every request must carry.
	Token string
	// CancelWait bounds how long a cancel waits for the run to reach a final
	// status before answering 202; DefaultCancelWait when 0.
	CancelWait time.Duration
	// Pages, when set, is the web page served at / and /ui/ (internal/web),
	// paths the API does not use. It passes the same guard as the API.
	Pages Pages
}

// Pages is a web page the daemon serves beside its API.
type Pages interface {
	http.Handler
	// Public reports whether a request is for what the page shows before
	// it has the token: documents and assets that hold no data. The guard
	// serves those GETs and HEADs without the token, so that the page can
	// load and ask for it; everything else needs it as the API does.
	Public(r *http.Request) bool
}

// pageRoutes are where Config.Pages is mounted: no API route is under them.
var pageRoutes = []string{"/", "/ui/*"}

// Server is the daemon's HTTP API. It holds no goroutines of its own; event
// streams live as long as the requests that opened them.
type Server struct {
	served atomic.Int64 // requests answered, for the disturbance mark
	cfg    Config
	log    *slog.Logger
	spec   specRoutes
	// document is the api/openapi.yaml served: this daemon's own targets
	// in it (servedDocument).
	document []byte
	hosts    hostSet
	token    []byte // SHA-256 of Config.Token; nil without one
	mux      *chi.Mux
}

// NewServer loads the embedded spec and builds the router.
func NewServer(cfg Config) (*Server, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	spec, err := loadSpecRoutes()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Logger, spec: spec, document: servedDocument(api.Spec, Served{Targets: cfg.Targets, Engines: cfg.Engines, CPUs: cfg.HostCPUs, MemoryMiB: cfg.HostMemoryMiB}),
		hosts: newHostSet(cfg.AllowedHosts), mux: chi.NewRouter()}
	if cfg.Token != "" {
		sum := sha256.Sum256([]byte(cfg.Token))
		s.token = sum[:]
	}
	s.routes()
	return s, nil
}

func (c *Config) setDefaults() error {
	if c.Runs == nil || c.Store == nil || c.Compare == nil {
		return errors.New("httpapi: Config needs Runs, Store and Compare")
	}
	if c.Gatherer == nil {
		c.Gatherer = prometheus.DefaultGatherer
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.KeepAlive <= 0 {
		c.KeepAlive = DefaultKeepAlive
	}
	if c.CancelWait <= 0 {
		c.CancelWait = DefaultCancelWait
	}
	for _, h := range c.AllowedHosts {
		if !ValidHost(h) {
			return fmt.Errorf("httpapi: allowed host %q is not a host or host:port", h)
		}
	}
	return nil
}

// specRoutes are the operations of api/openapi.yaml by method and path
// template ("GET /runs/{id}"), the same templates the router mounts.
type specRoutes map[string]*routers.Route

// loadSpecRoutes parses api/openapi.yaml and indexes its operations.
func loadSpecRoutes() (specRoutes, error) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		return nil, fmt.Errorf("httpapi: loading openapi.yaml: %w", err)
	}
	// The guard checks the token before routing. kin-openapi's own check
	// would read every request body into memory first, once per scheme.
	doc.Security = nil
	routes := specRoutes{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			routes[method+" "+path] = &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}
		}
	}
	return routes, nil
}

// Served returns how many requests the server has answered: API work that
// shares the load generator's CPUs during an attack (bench.FlagDisturbed).
func (s *Server) Served() int64 { return s.served.Load() }

// Handler returns the root handler, middleware included.
func (s *Server) Handler() http.Handler { return s.mux }

// Routes returns the API's mounted routes as "METHOD /path/{param}",
// sorted; the web page's (Config.Pages) are not the API's and not listed.
func (s *Server) Routes() []string {
	var out []string
	_ = chi.Walk(s.mux, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if !slices.Contains(pageRoutes, route) {
			out = append(out, method+" "+route)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// routes mounts every operation of api/openapi.yaml; a test checks that the
// two lists agree. Requests pass the guard before routing; parameters are
// validated once routed, against the operation of the route matched, so
// that a method the path does not have is a 405 and an unknown path a 404.
// HEAD is answered wherever GET is, by the GET handler (net/http drops the
// body).
func (s *Server) routes() {
	s.mux.Use(s.requestID, s.accessLog, s.recoverPanic, s.guard, s.limitBody, middleware.GetHead)
	s.mux.NotFound(s.notFound)
	s.mux.MethodNotAllowed(s.methodNotAllowed)
	s.mux.Group(func(r chi.Router) {
		r.Use(s.validate)
		s.operations(r)
	})
	if s.cfg.Pages != nil {
		for _, route := range pageRoutes {
			s.mux.Get(route, s.cfg.Pages.ServeHTTP)
		}
	}
}

// operations mounts the handlers of the document's operations.
func (s *Server) operations(r chi.Router) {
	r.Get("/openapi.yaml", s.getOpenAPI)
	r.Get("/healthz", s.getHealth)
	r.Get("/metrics", s.getMetrics().ServeHTTP)
	r.Get("/targets", s.listTargets)
	r.Get("/profiles", s.listProfiles)

	r.Post("/runs", s.submitRun)
	r.Get("/runs", s.listRuns)
	r.Get("/runs/trend", s.getTrend)
	r.Get("/runs/{id}", s.getRun)
	r.Delete("/runs/{id}", s.deleteRun)
	r.Post("/runs/{id}/cancel", s.cancelRun)
	r.Get("/runs/{id}/events", s.followRun)
	r.Get("/runs/{id}/targets/{target}/series", s.getSeries)
	r.Get("/runs/{id}/files", s.listFiles)
	r.Get("/runs/{id}/targets/{target}/recording.jfr", s.getRecording)
	r.Get("/runs/{id}/targets/{target}/threads.txt", s.getThreads)
	r.Get("/runs/{id}/targets/{target}/stages/{stage}/{file}", s.getStageFile)
	r.Get("/runs/{id}/report", s.getReport)

	r.Get("/compare", s.compareRuns)
}

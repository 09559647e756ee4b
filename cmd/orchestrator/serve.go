package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/httpapi"
	"github.com/threadbench/threadbench/internal/runner"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/internal/telemetry"
	"github.com/threadbench/threadbench/internal/web"
)

// shutdownTimeout bounds a graceful shutdown: the running run is cancelled
// and its container removed within it.
const shutdownTimeout = 60 * time.Second

func newServeCmd(g *globalState) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the daemon: the REST API of api/openapi.yaml in front of a run queue",
		Long: "Serve the REST API (GET /openapi.yaml describes it). Runs execute one at a time, first in first out.\n" +
			"On SIGINT/SIGTERM the running run is cancelled and its container removed; queued runs stay queued\n" +
			"for the next start. On start, runs a killed daemon left running are marked interrupted.\n\n" +
			"The daemon answers only requests addressed to its own names (its address, 127.0.0.1, localhost\n" +
			"and [::1] with its port, and --allowed-host), and refuses requests of other web sites to change\n" +
			"anything. With --token every request must carry Authorization: Bearer <token>; listening on\n" +
			"anything but a loopback address requires one.\n\n" +
			"The daemon's web page is at / (history, live runs, reports, compare, new run); with --token\n" +
			"it asks for the token once and keeps it in the browser tab.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(g, cmd.Flags())
			if err != nil {
				return err
			}
			return serve(g, cfg)
		},
	}
	cmd.Flags().String("addr", defaultAddr, "address to listen on (env "+envAddr+")")
	cmd.Flags().String("java-base-image", "", "Java: default JRE base image")
	cmd.Flags().String("token", "", "bearer token every request must carry; required beyond loopback (env "+envToken+", which keeps it out of ps)")
	cmd.Flags().StringSlice("allowed-host", nil, "another Host the API answers to: host:port, or host for any port (repeatable; env "+envAllowedHosts+")")
	return cmd
}

// serve runs the daemon until g.ctx is done. It prints the address it
// listens on (useful with port 0) before serving.
func serve(g *globalState, cfg config) error {
	if err := checkExposure(cfg); err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(g.stderr, nil))
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return bench.Errorf(bench.EINVALID, "listen on %s: %v", cfg.Addr, err)
	}
	d, err := openDaemon(g, cfg, ownHosts(cfg.Addr, ln.Addr(), cfg.AllowedHosts), logger)
	if err != nil {
		ln.Close()
		return err
	}
	// Requests get a context of their own that shutdown can cut: event
	// streams last as long as their run, longer than a shutdown may wait.
	requests, cutRequests := context.WithCancel(context.Background())
	defer cutRequests()
	srv := &http.Server{
		Handler:           d.api.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return requests },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(g.stderr, "threadbench daemon listening on http://%s (history %s)\n", ln.Addr(), cfg.DB)
	logger.Info("listening", "addr", ln.Addr().String(), "db", cfg.DB)

	select {
	case err = <-served:
	case <-g.ctx.Done():
		logger.Info("shutting down")
	}
	shutdown(srv, d, cutRequests, logger)
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// checkExposure refuses to serve beyond this machine without a token:
// anyone who can reach the port could otherwise run and delete runs.
func checkExposure(cfg config) error {
	if cfg.Token != "" || isLoopback(cfg.Addr) {
		return nil
	}
	return bench.FieldErrorf("token", "--addr %s listens beyond this machine (not a loopback address); "+
		"give the daemon a token (%s, --token, or token in the config file) so that only its holders can drive it, "+
		"or listen on 127.0.0.1", cfg.Addr, envToken)
}

// isLoopback reports whether a listen address is on loopback only:
// localhost or a loopback IP. No host (":8080") is every interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ownHosts are the Host header values the API answers to: the listen
// address as given and the loopback names, with the port it listens on
// (the real one when it was given as 0), and the configured extras.
func ownHosts(given string, listening net.Addr, extra []string) []string {
	_, port, err := net.SplitHostPort(listening.String())
	if err != nil {
		return extra // not TCP: only what was configured
	}
	hosts := []string{net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("localhost", port), net.JoinHostPort("::1", port)}
	if host, _, err := net.SplitHostPort(given); err == nil && host != "" {
		hosts = append(hosts, net.JoinHostPort(host, port))
	}
	return append(hosts, extra...)
}

// streamGrace is how long open requests get to end by themselves once the
// running run is cancelled: its event streams send the final document.
const streamGrace = 2 * time.Second

// shutdown stops taking requests and cancels the running run at once, so
// that the run is recorded and its followers see it end, then cuts what is
// still open (streams of queued runs, which would otherwise hold
// http.Server.Shutdown until its timeout), and releases the daemon.
func shutdown(srv *http.Server, d *daemon, cutRequests context.CancelFunc, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	httpDone := make(chan error, 1)
	go func() { httpDone <- srv.Shutdown(ctx) }()
	if err := d.queue.Close(ctx); err != nil {
		logger.Error("run queue shutdown", "err", err)
	}
	var httpErr error
	select {
	case httpErr = <-httpDone:
	case <-time.After(streamGrace):
		cutRequests()
		httpErr = <-httpDone
	}
	if httpErr != nil {
		logger.Warn("http shutdown", "err", httpErr)
	}
	if err := d.Close(ctx); err != nil {
		logger.Error("daemon shutdown", "err", err)
	}
}

// daemon is the daemon's long-lived parts, closed in reverse order.
type daemon struct {
	db    *store.DB
	deps  *runDeps
	queue *runner.Queue
	api   *httpapi.Server
}

func openDaemon(g *globalState, cfg config, hosts []string, logger *slog.Logger) (*daemon, error) {
	db := store.NewDB(cfg.DB)
	if err := db.Open(); err != nil {
		return nil, bench.Errorf(bench.EUNAVAILABLE, "open run history %s: %v", cfg.DB, err)
	}
	d := &daemon{db: db}
	deps, err := openRunDeps(g, cfg, db, true)
	if err != nil {
		db.Close()
		return nil, err
	}
	d.deps = deps
	catalog := g.specCatalog(cfg)
	for _, t := range catalog.Targets {
		if t.Unavailable != "" {
			logger.Warn("target cannot be built here; runs naming it are refused", "target", t.Name, "why", t.Unavailable)
		}
	}
	// The daemon's own metrics read the queue, which does not exist yet
	// when they are made: they ask it through d at scrape time.
	reg := prometheus.NewRegistry()
	metrics := telemetry.New(reg, func() int { return d.queue.QueueLength() }, func() bool { return d.queue.Current() != "" })
	deps.config.Observe, deps.config.Logger = metrics.Observe, logger
	d.queue = newRunQueue(deps, db, catalog, cfg.Guardrails.MaxQueue)

	compare := func(base, head *bench.Run, threshold float64) bench.Comparison {
		return analysis.Compare(base, head, analysis.CompareOptions{NoiseThreshold: threshold})
	}
	pages, err := web.New(web.Config{Store: db, Compare: compare, Targets: catalog.Targets, Profiles: builtin.Profiles(),
		Experiments: builtin.Experiments(), Endpoints: bench.Endpoints(), Logger: logger})
	if err == nil {
		d.api, err = httpapi.NewServer(httpapi.Config{
			Runs:          d.queue,
			Store:         db,
			Targets:       catalog.Targets,
			Engines:       engineNames(catalog),
			HostCPUs:      float64(catalog.HostCPUs),
			HostMemoryMiB: catalog.HostMemoryBytes >> 20,
			Profiles:      builtin.Profiles(),
			Compare:       compare,
			Gatherer:      reg,
			Logger:        logger,
			AllowedHosts:  hosts,
			Token:         cfg.Token,
			Pages:         pages,
		})
	}
	if err == nil {
		deps.api.Store(d.api) // its requests are disturbance during attacks
		err = d.queue.Open(g.ctx)
	}
	if err != nil {
		deps.Close()
		db.Close()
		return nil, err
	}
	return d, nil
}

// Close cancels the running run and waits for it to be recorded, then
// releases the runtime and the database. Closing the queue twice is fine.
func (d *daemon) Close(ctx context.Context) error {
	err := d.queue.Close(ctx)
	d.deps.Close()
	if dbErr := d.db.Close(); err == nil {
		err = dbErr
	}
	return err
}

// engineNames are the engines a spec may name on this daemon: local, then
// the configured ones.
func engineNames(c bench.Catalog) []string {
	names := []string{bench.EngineLocal}
	for _, e := range c.Engines {
		names = append(names, e.Name)
	}
	return names
}

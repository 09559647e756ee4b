package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/httpapi"
	"github.com/threadbench/threadbench/internal/report"
	"github.com/threadbench/threadbench/internal/runner"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/internal/telemetry"
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
			"for the next start. On start, runs a killed daemon left running are marked interrupted.",
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
	return cmd
}

// serve runs the daemon until g.ctx is done. It prints the address it
// listens on (useful with port 0) before serving.
func serve(g *globalState, cfg config) error {
	logger := slog.New(slog.NewJSONHandler(g.stderr, nil))
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return bench.Errorf(bench.EINVALID, "listen on %s: %v", cfg.Addr, err)
	}
	d, err := openDaemon(g, cfg, logger)
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

func openDaemon(g *globalState, cfg config, logger *slog.Logger) (*daemon, error) {
	db := store.NewDB(cfg.DB)
	if err := db.Open(); err != nil {
		return nil, bench.Errorf(bench.EUNAVAILABLE, "open run history %s: %v", cfg.DB, err)
	}
	d := &daemon{db: db}
	deps, err := newRunDeps(g, cfg, db, true)
	if err != nil {
		db.Close()
		return nil, err
	}
	d.deps = deps
	catalog := g.specCatalog(cfg)
	prepare := func(spec *bench.RunSpec) error { return bench.Prepare(spec, catalog) }
	// The daemon's own metrics read the queue, which does not exist yet
	// when they are made: they ask it through d at scrape time.
	reg := prometheus.NewRegistry()
	metrics := telemetry.New(reg, func() int { return d.queue.QueueLength() }, func() bool { return d.queue.Current() != "" })
	deps.config.Observe, deps.config.Logger = metrics.Observe, logger
	d.queue = runner.NewQueue(deps.config, db, prepare, cfg.Guardrails.MaxQueue)

	d.api, err = httpapi.NewServer(httpapi.Config{
		Runs:     d.queue,
		Store:    db,
		Targets:  catalog.Targets,
		Profiles: bench.Builtins(),
		Compare: func(base, head *bench.Run, threshold float64) bench.Comparison {
			return report.Compare(base, head, report.CompareOptions{NoiseThreshold: threshold})
		},
		Gatherer: reg,
		Logger:   logger,
	})
	if err == nil {
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

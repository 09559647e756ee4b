// Command go is threadbench's Go target: the contract's endpoints
// (targets/CONTRACT.md) on net/http, configured by BIND_ADDR, PORT and
// TARGET_NAME, DOWNSTREAM_URL for the fan-out endpoints and the DB_*
// variables for /api/db. It stops gracefully on SIGTERM or SIGINT.
//
// Built with CGO_ENABLED=0 it is a static binary that runs in a FROM-scratch
// image: it reads no /etc file and resolves no name at start.
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/threadbench/threadbench/targets/go/server"
)

// shutdownTimeout is how long requests in flight may finish after a
// signal; Docker's default grace period before SIGKILL is 10s.
const shutdownTimeout = 5 * time.Second

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, logger, os.Getenv); err != nil {
		logger.Error("target stopped", "err", err)
		stop()
		os.Exit(1)
	}
}

// run serves until ctx ends or serving fails.
func run(ctx context.Context, logger *slog.Logger, getenv func(string) string) error {
	cfg, err := server.ConfigFromEnv(getenv)
	if err != nil {
		return err
	}
	srv := server.New(cfg)
	if err := srv.Open(); err != nil {
		return err
	}
	logger.Info("listening", "addr", srv.Addr(), "target", cfg.Target,
		"go", runtime.Version(), "gomaxprocs", runtime.GOMAXPROCS(0), "downstream", cfg.Downstream,
		"db", cfg.DB.Kind, "dbPool", cfg.DB.Pool)
	select {
	case <-ctx.Done():
	case <-srv.Done():
		return srv.Err()
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Close(closeCtx); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}

package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/client"
	"github.com/threadbench/threadbench/internal/store"
)

// history is where runs are read from: the local SQLite store, or a daemon
// when --server is set. Both speak bench.
type history interface {
	FindRunByID(ctx context.Context, id string) (*bench.Run, error)
	FindRunSummaries(ctx context.Context, f bench.RunFilter) ([]bench.RunSummary, string, error)
	DeleteRun(ctx context.Context, id string) error
	Close() error
}

var (
	_ history = (*store.DB)(nil)
	_ history = (*client.Client)(nil)
)

// openHistory opens the daemon client or the local store the config names.
func openHistory(cfg config) (history, error) {
	if cfg.Server != "" {
		return cfg.newClient(), nil
	}
	db := store.NewDB(cfg.DB)
	if err := db.Open(); err != nil {
		return nil, bench.Errorf(bench.EUNAVAILABLE, "open run history %s: %v", cfg.DB, err)
	}
	return db, nil
}

// withHistory loads the command's config, opens the history it names, runs
// fn with it and closes it.
func withHistory(g *globalState, cmd *cobra.Command, fn func(h history) error) error {
	cfg, err := loadConfig(g, cmd.Flags())
	if err != nil {
		return err
	}
	h, err := openHistory(cfg)
	if err != nil {
		return err
	}
	defer h.Close()
	return fn(h)
}

// compareRuns compares two runs: on the daemon when there is one (it reads
// the histograms there), else locally.
func compareRuns(ctx context.Context, h history, base, head string, threshold float64) (bench.Comparison, error) {
	if c, ok := h.(*client.Client); ok {
		return c.Compare(ctx, base, head, threshold)
	}
	baseRun, err := h.FindRunByID(ctx, base)
	if err != nil {
		return bench.Comparison{}, err
	}
	headRun, err := h.FindRunByID(ctx, head)
	if err != nil {
		return bench.Comparison{}, err
	}
	return analysis.Compare(baseRun, headRun, analysis.CompareOptions{NoiseThreshold: threshold}), nil
}

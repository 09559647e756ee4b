package main

import (
	"io"
	"log/slog"
	"time"

	"github.com/threadbench/threadbench/internal/httpapi/standin"
	"github.com/threadbench/threadbench/internal/runner"
	"github.com/threadbench/threadbench/internal/store"
)

// newStandInDeps makes run parts that stand in for Docker and the load
// generator (internal/httpapi/standin): a run goes through the real queue,
// runner and store but completes in stagePause per stage, with made-up
// figures. Only the conformance build (standin_conformance.go) and tests
// serve with them. The host lock is the history's own, so that a stand-in
// run never waits for a real one, nor holds one up.
func newStandInDeps(g *globalState, cfg config, db *store.DB, stagePause time.Duration) *runDeps {
	return &runDeps{config: runner.Config{
		Targets:  standin.NewRuntime(g.catalog.Infos()),
		Store:    db,
		Series:   db,
		Attacker: standin.Attacker{StagePause: stagePause},
		LockPath: cfg.DB + ".standin-lock",
		CPUs:     1, // no CPU split: nothing to pin
		BuildLog: io.Discard,
		Logger:   slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}}
}

//go:build conformance

package main

import (
	"fmt"

	"github.com/threadbench/threadbench/internal/httpapi/standin"
	"github.com/threadbench/threadbench/internal/store"
)

// The conformance build (make conformance) serves the real API, queue,
// runner and store, but executes runs on the stand-in: no image is built,
// no container started and no request sent, so that an API fuzzer can
// submit hundreds of runs in a couple of minutes.
func init() {
	openRunDeps = func(g *globalState, cfg config, db *store.DB, _ bool) (*runDeps, error) {
		fmt.Fprintln(g.stderr, "conformance build: runs execute on a stand-in; no target is started and no figure is measured")
		return newStandInDeps(g, cfg, db, standin.DefaultStagePause), nil
	}
}

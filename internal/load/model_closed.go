package load

import (
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

func init() { registerExecution(bench.ModelClosed, closedExecution{}) }

// closedExecution sends bench.ModelClosed: every stage a number of clients
// each keeping one request in flight; only a fixed warm-up is paced.
type closedExecution struct{}

func (closedExecution) paced() bool                             { return false }
func (closedExecution) clients(st bench.Stage) int              { return st.Concurrency }
func (closedExecution) stageLoad(st bench.Stage) (float64, int) { return 0, st.Concurrency }

// sizing sizes a fixed warm-up's connections as the open model does.
func (closedExecution) sizing(e *Engine, p bench.Plan, rest time.Duration) sizing {
	return e.openSizing(p, rest)
}

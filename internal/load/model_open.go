package load

import (
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

func init() { registerExecution(bench.ModelOpen, openExecution{}) }

// openExecution sends bench.ModelOpen: every stage a paced arrival rate,
// from connections sized to what the attack measures.
type openExecution struct{}

func (openExecution) paced() bool                             { return true }
func (openExecution) clients(bench.Stage) int                 { return 0 }
func (openExecution) stageLoad(st bench.Stage) (float64, int) { return st.Rate, 0 }
func (openExecution) sizing(e *Engine, p bench.Plan, rest time.Duration) sizing {
	return e.openSizing(p, rest)
}

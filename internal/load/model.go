package load

import (
	"fmt"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// execution is what the engine does with the stages of one load model
// (bench.LoadModel): how they are laid out and sent, and what a stage's
// result records. Each model's file in this package registers its own, so
// that a new model is its type in bench plus its file here, and the engine
// asks the model rather than testing what kind it is.
type execution interface {
	// paced says whether the model's stages are a schedule of arrivals,
	// each request sent when due, rather than clients kept in flight (a
	// ramp of clients steps once a second).
	paced() bool
	// clients is how many clients a stage keeps in flight: 0 when paced.
	clients(st bench.Stage) int
	// stageLoad is the load a stage's result records.
	stageLoad(st bench.Stage) (rate float64, concurrency int)
	// sizing bounds the connections the paced part of the plan (the whole
	// profile, or a closed one's fixed warm-up) is sent from, rest being
	// the slowest request's expected latency beyond what it sleeps.
	sizing(e *Engine, plan bench.Plan, rest time.Duration) sizing
}

// executions are the registered executions by their model's name.
var executions = map[bench.Model]execution{}

// registerExecution makes the execution of the model named known.
func registerExecution(name bench.Model, x execution) {
	if _, dup := executions[name]; dup {
		panic(fmt.Sprintf("load: execution of model %q registered twice", name))
	}
	executions[name] = x
}

// executionOf returns the execution of the model a plan names (see
// bench.ModelOf); a name no model has is executed as the default model.
func executionOf(name bench.Model) execution {
	if x, ok := executions[bench.ModelOf(name).Name()]; ok {
		return x
	}
	return executions[bench.DefaultModel]
}

package runner

import (
	"context"
	"io"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
)

// TargetRuntime builds and starts targets (internal/targets on Docker; a fake
// in tests). cmd/orchestrator adapts the concrete runtime to it.
type TargetRuntime interface {
	// Build builds (or finds cached) the target's image for the spec.
	Build(ctx context.Context, target string, spec bench.RunSpec, log io.Writer) (bench.ImageInfo, error)
	// Start starts the target and returns once it is healthy.
	Start(ctx context.Context, target string, img bench.ImageInfo, req StartRequest) (Target, error)
	// Cleanup removes every container this program started, of any run.
	Cleanup(ctx context.Context) (int, error)
	// Engine describes the container engine for the run's environment.
	Engine(ctx context.Context) (EngineInfo, error)
}

// StartRequest is how a target is started.
type StartRequest struct {
	RunID  string
	Limits bench.Limits
	CPUSet string
	Java   bench.JavaOptions
}

// EngineInfo describes the container engine.
type EngineInfo struct {
	Version       string
	CgroupVersion string
}

// ContainerState is a started target's container state.
type ContainerState struct {
	Running   bool
	OOMKilled bool
	ExitCode  int
}

// Target is a started, healthy target.
type Target interface {
	BaseURL() string
	MetricsURL() string
	ContainerID() string
	Startup() time.Duration
	Settings() map[string]string
	State(ctx context.Context) (ContainerState, error)
	Logs(ctx context.Context, tail int) (string, error)
	Stop(ctx context.Context) error
}

// Attacker runs a load plan against a base URL (internal/load's Engine).
type Attacker interface {
	Run(ctx context.Context, baseURL string, plan load.Plan, obs load.Observer) (*load.Result, error)
}

// Checker is the quick contract check run before an attack.
type Checker func(ctx context.Context, target, baseURL string) error

// Recorder scrapes a target's metrics and container stats while it is under
// attack (internal/metrics). It is optional.
type Recorder interface {
	// Record starts sampling the target now (warm-up included); limits are
	// the target's, for CPU use as a share of its limit.
	Record(ctx context.Context, target string, t Target, limits bench.Limits) Recording
}

// Recording is one target's sampling in progress.
type Recording interface {
	// SetT0 sets the attack clock's zero: the first measured request.
	SetT0(t0 time.Time)
	// Stop ends sampling and summarises it per stage, given the stages as
	// measured (warm-up first when present).
	Stop(ctx context.Context, warmup *bench.StageResult, stages []bench.StageResult) RecordingResult
}

// RecordingResult is what a Recording kept.
type RecordingResult struct {
	Series      []bench.Series
	Expositions []bench.Exposition
	Resources   []bench.StageResources
}

// Package standin stands in for the container runtime and the load
// generator: targets that start at once and do nothing, and attacks that
// report every stage of their plan after a short pause, with made-up
// figures. With it the daemon's real API, queue, runner and store can be
// driven end to end in well under a second per run, without Docker, as the
// HTTP conformance job and the daemon's tests do. Nothing it reports is a
// measurement, and a real daemon never uses it.
package standin

import (
	"context"
	"io"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// Runtime is a bench.TargetRuntime whose targets start at once.
type Runtime struct {
	entries map[string]bench.TargetInfo
}

var _ bench.TargetRuntime = (*Runtime)(nil)

// NewRuntime returns a runtime that starts the targets of a catalog.
func NewRuntime(catalog []bench.TargetInfo) *Runtime {
	entries := make(map[string]bench.TargetInfo, len(catalog))
	for _, e := range catalog {
		entries[e.Name] = e
	}
	return &Runtime{entries: entries}
}

// Build returns an image that is always cached.
func (rt *Runtime) Build(ctx context.Context, target string, _ bench.RunSpec, _ io.Writer) (bench.ImageInfo, error) {
	if err := ctx.Err(); err != nil {
		return bench.ImageInfo{}, err
	}
	return bench.ImageInfo{Ref: "standin/" + target, ID: "sha256:standin", BaseImage: "scratch", Runtime: "stand-in", Cached: true}, nil
}

// Start returns a target that is healthy at once.
func (rt *Runtime) Start(ctx context.Context, target string, img bench.ImageInfo, req bench.StartRequest) (bench.Target, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name, _, _ := strings.Cut(target, "@")
	entry, ok := rt.entries[name]
	if !ok {
		entry = bench.TargetInfo{Name: name}
	}
	return &Target{entry: entry, image: img.Ref}, nil
}

// Cleanup has no containers to remove.
func (rt *Runtime) Cleanup(context.Context) (int, error) { return 0, nil }

// Engine describes no engine, by the name asked.
func (rt *Runtime) Engine(_ context.Context, name string) (bench.EngineInfo, error) {
	return bench.EngineInfo{Name: name, Address: "127.0.0.1", Machine: bench.Machine{OS: runtime.GOOS, CPUs: 1, DockerVersion: "stand-in", CgroupVersion: "2"}}, nil
}

// Target is a started stand-in target. It answers every check and never dies.
type Target struct {
	entry bench.TargetInfo
	image string
}

var _ bench.Target = (*Target)(nil)

// Entry returns the catalog entry the target was started from.
func (t *Target) Entry() bench.TargetInfo { return t.entry }

// BaseURL is an address nothing listens on: the stand-in attacker sends nothing.
func (t *Target) BaseURL() string { return "http://standin.invalid" }

// MetricsURL is where metrics would be.
func (t *Target) MetricsURL() string { return t.BaseURL() + t.entry.MetricsPath }

// ContainerID names no container.
func (t *Target) ContainerID() string { return "standin-" + t.entry.Name }

// Startup is a millisecond.
func (t *Target) Startup() time.Duration { return time.Millisecond }

// Settings says that the target is a stand-in.
func (t *Target) Settings() map[string]string {
	return map[string]string{"image": t.image, "standin": "true"}
}

// Check passes.
func (t *Target) Check(context.Context) error { return nil }

// Info is what a target reports at GET /info, in brief.
func (t *Target) Info(context.Context) (map[string]string, error) {
	return map[string]string{"runtime": "stand-in", "threadModel": t.entry.ThreadModel}, nil
}

// State is always running.
func (t *Target) State(context.Context) (bench.ContainerState, error) {
	return bench.ContainerState{Running: true}, nil
}

// Logs are empty.
func (t *Target) Logs(context.Context, int) (string, error) { return "", nil }

// Stop stops nothing.
func (t *Target) Stop(context.Context) error { return nil }

// DefaultStagePause is how long an Attacker takes over a stage when its
// StagePause is 0.
const DefaultStagePause = 10 * time.Millisecond

// Attacker is a bench.Attacker that sends no request. It reports the
// warm-up and each stage of the plan after StagePause, with one second of
// made-up figures each, and stops early when its context is cancelled.
type Attacker struct {
	StagePause time.Duration
}

var _ bench.Attacker = Attacker{}

// Run reports the plan's stages as if it had attacked them.
func (a Attacker) Run(ctx context.Context, _ string, plan bench.Plan, obs bench.Observer) (*bench.AttackResult, error) {
	res := &bench.AttackResult{T0: time.Now().UTC()}
	if obs.Start != nil {
		obs.Start(res.T0)
	}
	if w := plan.Warmup; !w.Disabled && w.Duration > 0 {
		warmup := bench.StageResult{Index: -1, Model: bench.ModelOpen, Warmup: true,
			StartOffset: -w.Duration, Duration: w.Duration, Rate: w.Rate}
		if err := a.stage(ctx, &warmup, obs); err != nil {
			return res, err
		}
		res.Warmup = &warmup
	}
	var offset bench.Duration
	for i, st := range plan.Profile.Stages {
		sr := bench.StageResult{Index: i, Name: st.Name, Model: plan.Profile.Model, StartOffset: offset,
			Duration: st.Duration, Rate: st.Rate, Concurrency: st.Concurrency}
		if err := a.stage(ctx, &sr, obs); err != nil {
			return res, err
		}
		res.Stages = append(res.Stages, sr)
		bucket := bench.Bucket{Second: i, Stage: i, Stats: sr.Stats}
		res.Seconds = append(res.Seconds, bucket)
		if obs.Second != nil {
			obs.Second(bucket)
		}
		offset = addSaturating(offset, st.Duration)
	}
	res.Total = madeUpStats(offset)
	return res, nil
}

// stage announces a stage, waits StagePause and fills in its figures.
func (a Attacker) stage(ctx context.Context, sr *bench.StageResult, obs bench.Observer) error {
	if obs.Stage != nil {
		obs.Stage(*sr)
	}
	pause := a.StagePause
	if pause <= 0 {
		pause = DefaultStagePause
	}
	timer := time.NewTimer(pause)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
	}
	sr.Stats = madeUpStats(sr.Duration)
	return nil
}

// madeUpStats are the figures of 100 requests that all succeeded in 2 ms.
func madeUpStats(elapsed bench.Duration) bench.Stats {
	const requests = 100
	seconds := time.Duration(elapsed).Seconds()
	rate := 0.0
	if seconds > 0 {
		rate = requests / seconds
	}
	return bench.Stats{
		Requests: requests, Successes: requests, Completed: requests, OfferedRate: rate, Throughput: rate,
		Elapsed: elapsed, StatusCodes: map[string]int64{"200": requests}, BytesIn: 100 * requests, BytesOut: 10 * requests,
		Latency: bench.Latency{Min: 1, Mean: 2, P50: 2, P90: 3, P95: 3, P99: 4, P999: 5, Max: 5},
	}
}

// addSaturating adds durations, stopping at the largest one rather than
// wrapping around.
func addSaturating(a, b bench.Duration) bench.Duration {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

package main

import (
	"context"
	"log/slog"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
	"github.com/threadbench/threadbench/internal/runner"
	"github.com/threadbench/threadbench/internal/targets"
)

// metricsRecorder adapts the metrics sampler to the runner's Recorder: it
// scrapes each target's metrics and reads its container stats during the
// attack.
type metricsRecorder struct {
	sampler *metrics.Sampler
	log     *slog.Logger
}

var _ runner.Recorder = (*metricsRecorder)(nil)

func newRecorder(rt *targets.Runtime, log *slog.Logger) *metricsRecorder {
	return &metricsRecorder{sampler: metrics.NewSampler(rt.Client()), log: log}
}

func (m *metricsRecorder) Record(ctx context.Context, target string, t runner.Target, limits bench.Limits) runner.Recording {
	rec := m.sampler.Start(ctx, metrics.Target{
		Name: target, MetricsURL: t.MetricsURL(), ContainerID: t.ContainerID(),
		CPULimit: limits.CPUs, MemoryLimitBytes: limits.MemoryMiB << 20,
	})
	return recording{Recording: rec, target: target, log: m.log}
}

type recording struct {
	*metrics.Recording
	target string
	log    *slog.Logger
}

func (r recording) Stop(ctx context.Context, warmup *bench.StageResult, stages []bench.StageResult) runner.RecordingResult {
	res := r.Recording.Stop(ctx, warmup, stages)
	if res.ScrapeFailures > 0 || res.StatsFailures > 0 {
		r.log.Warn("metrics sampling had failures", "target", r.target,
			"scrapeFailures", res.ScrapeFailures, "statsFailures", res.StatsFailures, "last", res.LastError)
	}
	return runner.RecordingResult{Series: res.Series, Expositions: res.Expositions, Resources: res.Resources}
}

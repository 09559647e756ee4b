package main

import (
	"context"
	"io"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/runner"
	"github.com/threadbench/threadbench/internal/targets"
	"github.com/threadbench/threadbench/internal/targets/contracttest"
)

// targetRuntime adapts the Docker runtime to the runner's port.
type targetRuntime struct {
	rt            *targets.Runtime
	javaBaseImage string
}

var _ runner.TargetRuntime = (*targetRuntime)(nil)

func (a *targetRuntime) Build(ctx context.Context, target string, spec bench.RunSpec, log io.Writer) (bench.ImageInfo, error) {
	base := firstNonEmpty(spec.Java.BaseImage, a.javaBaseImage)
	return a.rt.Build(ctx, target, targets.BuildOptions{JavaBaseImage: base, Log: log})
}

func (a *targetRuntime) Start(ctx context.Context, target string, img bench.ImageInfo, req runner.StartRequest) (runner.Target, error) {
	inst, err := a.rt.Start(ctx, target, img, targets.StartOptions{
		Limits: req.Limits, CPUSet: req.CPUSet, Java: req.Java, RunID: req.RunID,
	})
	if err != nil {
		return nil, err
	}
	return instance{inst}, nil
}

func (a *targetRuntime) Cleanup(ctx context.Context) (int, error) { return a.rt.Cleanup(ctx) }

func (a *targetRuntime) Engine(ctx context.Context) (runner.EngineInfo, error) {
	info, err := a.rt.EngineInfo(ctx)
	return runner.EngineInfo{Version: info.Version, CgroupVersion: info.CgroupVersion}, err
}

// instance adapts a started container to runner.Target.
type instance struct{ *targets.Instance }

func (i instance) State(ctx context.Context) (runner.ContainerState, error) {
	st, err := i.Instance.State(ctx)
	return runner.ContainerState{Running: st.Running, OOMKilled: st.OOMKilled, ExitCode: st.ExitCode}, err
}

// contractCheck is the quick contract check before an attack.
func contractCheck(ctx context.Context, target, baseURL string) error {
	entry, err := targets.Lookup(target)
	if err != nil {
		return err
	}
	opts := contracttest.Options{Target: target, MetricsPath: entry.MetricsPath}
	if entry.Kind == targets.KindJava {
		virtual := entry.ThreadModel == targets.ThreadModelVirtual
		opts.Virtual = &virtual
	}
	return contracttest.Check(ctx, baseURL, opts)
}

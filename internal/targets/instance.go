package targets

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/threadbench/threadbench/internal/bench"
)

var clientInspectOptions = client.ContainerInspectOptions{}

// Instance is one running target container.
type Instance struct {
	entry    Entry
	image    bench.ImageInfo
	port     int
	ctr      testcontainers.Container
	runtime  *Runtime
	startup  time.Duration
	settings map[string]string

	mu      sync.Mutex
	stopped bool
}

// ContainerState is what the engine says about an instance's container.
type ContainerState struct {
	Running   bool
	OOMKilled bool
	ExitCode  int
}

// Name returns the target's catalog name.
func (in *Instance) Name() string { return in.entry.Name }

// Image returns the image the instance runs.
func (in *Instance) Image() bench.ImageInfo { return in.image }

// Port returns the loopback port the target listens on.
func (in *Instance) Port() int { return in.port }

// BaseURL returns the target's address, e.g. "http://127.0.0.1:40123".
func (in *Instance) BaseURL() string { return "http://127.0.0.1:" + strconv.Itoa(in.port) }

// MetricsURL returns the address of the target's Prometheus exposition.
func (in *Instance) MetricsURL() string { return in.BaseURL() + in.entry.MetricsPath }

// ContainerID returns the Docker container's ID.
func (in *Instance) ContainerID() string { return in.ctr.GetContainerID() }

// Startup returns how long the target took from container start to its
// first healthy answer.
func (in *Instance) Startup() time.Duration { return in.startup }

// Settings returns how the target runs (image, limits, cpuset, port, thread
// model, JVM flags, Tomcat threads...), for the run's results.
func (in *Instance) Settings() map[string]string { return maps.Clone(in.settings) }

// State asks the engine about the container.
func (in *Instance) State(ctx context.Context) (ContainerState, error) {
	st, err := in.ctr.State(ctx)
	if err != nil {
		return ContainerState{}, fmt.Errorf("inspect container of %s: %w", in.entry.Name, err)
	}
	return ContainerState{Running: st.Running, OOMKilled: st.OOMKilled, ExitCode: st.ExitCode}, nil
}

// Logs returns the last tail lines of the container's output (stdout and
// stderr together); tail <= 0 returns all of it.
func (in *Instance) Logs(ctx context.Context, tail int) (string, error) {
	opts := client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Tail: "all"}
	if tail > 0 {
		opts.Tail = strconv.Itoa(tail)
	}
	rc, err := in.runtime.docker.ContainerLogs(ctx, in.ContainerID(), opts)
	if err != nil {
		return "", fmt.Errorf("logs of %s: %w", in.entry.Name, err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := stdcopy.StdCopy(&buf, &buf, rc); err != nil {
		return buf.String(), fmt.Errorf("logs of %s: %w", in.entry.Name, err)
	}
	return buf.String(), nil
}

// Stop stops the container, giving the target a short grace period to
// finish, then removes it. Stopping a stopped instance does nothing.
func (in *Instance) Stop(ctx context.Context) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.stopped {
		return nil
	}
	if err := in.ctr.Terminate(ctx, testcontainers.StopTimeout(stopGracePeriod)); err != nil {
		return fmt.Errorf("stop target %s: %w", in.entry.Name, err)
	}
	in.stopped = true
	return nil
}

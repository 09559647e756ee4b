package targets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets/contracttest"
)

// Instance is one running target container; it implements bench.Target.
type Instance struct {
	entry Entry
	name  string // as the spec named it, variant included
	image bench.ImageInfo
	host  string // where it is reached: its engine's address
	port  int
	// metricsPort is where the metrics are served when not on port (0).
	metricsPort int
	id          string // the container's
	runtime     *Runtime
	startup     time.Duration
	settings    map[string]string
	// downstream is the DOWNSTREAM_URL it was started with, for the contract check.
	downstream string
	instance   string // its io.threadbench.instance label
	// requests are the workload's: a target of one's own is checked by
	// them, and the first may stand for its readiness.
	requests []bench.Request
	// readyBy is what answered for the target's readiness (its health
	// path, or the request that stood for it); noMetrics is set when its
	// optional metrics path did not answer.
	readyBy   string
	noMetrics bool
	runID     string            // the run it was started for
	env       map[string]string // the environment it was started with
	// recording is set when its JVM records (JFR); noProfile says why a
	// JVM does not.
	recording bool
	noProfile string
	// noSamples says why a recorded JVM runs without the thread sampler.
	noSamples string

	mu      sync.Mutex
	stopped bool
	halted  bool
}

var _ bench.Target = (*Instance)(nil)

// Name returns the target as the spec named it ("java-virtual@21").
func (in *Instance) Name() string { return in.name }

// Entry returns the catalog entry the instance was started from.
func (in *Instance) Entry() bench.TargetInfo { return in.entry.Info() }

// Image returns the image the instance runs.
func (in *Instance) Image() bench.ImageInfo { return in.image }

// Port returns the port the target listens on.
func (in *Instance) Port() int { return in.port }

// Engine returns the name of the engine the target runs on.
func (in *Instance) Engine() string { return in.runtime.engine.Name }

// BaseURL returns the target's address, e.g. "http://127.0.0.1:40123", or
// on a remote engine "http://198.18.0.2:23456": the engine's address.
func (in *Instance) BaseURL() string {
	return "http://" + net.JoinHostPort(in.host, strconv.Itoa(in.port))
}

// MetricsURL returns the address of the target's Prometheus exposition:
// on its metrics port when it has one.
// It is empty for a target with no metrics: only its container's figures
// are recorded.
func (in *Instance) MetricsURL() string {
	if in.entry.MetricsPath == "" || in.noMetrics {
		return ""
	}
	return in.metricsBase() + in.entry.MetricsPath
}

// metricsBase is the base URL of the metrics server: the target's own, or
// its metrics port's.
func (in *Instance) metricsBase() string {
	if in.metricsPort == 0 {
		return in.BaseURL()
	}
	return "http://" + net.JoinHostPort(in.host, strconv.Itoa(in.metricsPort))
}

// ContainerID returns the Docker container's ID.
func (in *Instance) ContainerID() string { return in.id }

// ContainerStats reads the stats of a container from the engine the
// instance runs on (metrics.StatsSource): with several engines, only its
// own knows its container.
func (in *Instance) ContainerStats(ctx context.Context, containerID string, options client.ContainerStatsOptions) (client.ContainerStatsResult, error) {
	return in.runtime.docker.ContainerStats(ctx, containerID, options)
}

// Startup returns how long the target took from container start to its
// first healthy answer.
func (in *Instance) Startup() time.Duration { return in.startup }

// Settings returns how the target runs (image, limits, cpuset, port, thread
// model, JVM flags, Tomcat threads...), for the run's results.
func (in *Instance) Settings() map[string]string { return maps.Clone(in.settings) }

// State asks the engine about the container.
func (in *Instance) State(ctx context.Context) (bench.ContainerState, error) {
	st, err := in.runtime.containerState(ctx, in.id)
	if err != nil {
		return bench.ContainerState{}, fmt.Errorf("inspect container of %s: %w", in.entry.Name, err)
	}
	return bench.ContainerState{Running: st.Running, OOMKilled: st.OOMKilled, ExitCode: st.ExitCode}, nil
}

// Check is the quick contract check (internal/targets/contracttest) of the
// target, made before an attack.
// A target of one's own serves no contract: each of the workload's
// requests is sent once instead, and must answer as it expects.
func (in *Instance) Check(ctx context.Context) error {
	if in.entry.Own {
		return precheck(ctx, in.BaseURL(), in.requests)
	}
	opts := ContractOptions(in.entry, in.name)
	opts.Downstream = in.downstream
	opts.MetricsBase = in.metricsBase()
	return contracttest.Check(ctx, in.BaseURL(), opts)
}

// ContractOptions says what a target started from entry as name must
// report to the contract test.
func ContractOptions(entry Entry, name string) contracttest.Options {
	return contracttest.Options{Target: name, MetricsPath: entry.MetricsPath, ThreadModel: entry.ThreadModel}
}

// infoTimeout bounds the GET /info a target answers at once.
const infoTimeout = 5 * time.Second

// Info reads what the target says about itself at GET /info (part of the
// contract), flattened to strings: nested objects as "knobs.GOMAXPROCS",
// lists joined with commas.
// A target of one's own has no /info: what it is comes from its entry.
func (in *Instance) Info(ctx context.Context) (map[string]string, error) {
	if in.entry.Own {
		return in.ownInfo(ctx), nil
	}
	ctx, cancel := context.WithTimeout(ctx, infoTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, in.BaseURL()+"/info", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET /info of %s: %w", in.name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /info of %s: %s", in.name, resp.Status)
	}
	var doc map[string]any
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("GET /info of %s: %w", in.name, err)
	}
	out := map[string]string{}
	flatten(out, "", doc)
	return out, nil
}

// flatten writes a JSON document's leaves into out under dotted keys.
func flatten(out map[string]string, prefix string, v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, sub := range t {
			flatten(out, prefix+k+".", sub)
		}
	case []any:
		parts := make([]string, len(t))
		for i, item := range t {
			parts[i] = fmt.Sprint(item)
		}
		out[strings.TrimSuffix(prefix, ".")] = strings.Join(parts, ",")
	default:
		out[strings.TrimSuffix(prefix, ".")] = fmt.Sprint(t)
	}
}

// Logs returns the last tail lines of the container's output (stdout and
// stderr together); tail <= 0 returns all of it.
func (in *Instance) Logs(ctx context.Context, tail int) (string, error) {
	opts := client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Tail: "all"}
	if tail > 0 {
		opts.Tail = strconv.Itoa(tail)
	}
	rc, err := in.runtime.docker.ContainerLogs(ctx, in.id, opts)
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
	err := in.runtime.stopAndRemove(ctx, in.id, int(stopGracePeriod/time.Second))
	if err != nil {
		// Whatever failed, the container must not outlive its run.
		if _, rmErr := in.runtime.removeLabelled(context.WithoutCancel(ctx), LabelInstance+"="+in.instance); rmErr != nil {
			return fmt.Errorf("stop target %s: %w (and removing it: %v)", in.entry.Name, err, rmErr)
		}
	}
	in.stopped = true
	return nil
}

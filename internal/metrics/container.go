package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// StatsSource reads a container's stats from the Docker engine. The engine
// client (*client.Client of github.com/moby/moby, client.APIClient) and a
// started target (targets.Instance, from the engine it runs on) satisfy it.
type StatsSource interface {
	ContainerStats(ctx context.Context, containerID string, options client.ContainerStatsOptions) (client.ContainerStatsResult, error)
}

// Container series names.
const (
	ContainerCPUSeconds          = "container_cpu_usage_seconds_total"
	ContainerCPURatio            = "container_cpu_usage_ratio"
	ContainerThrottledPeriods    = "container_cpu_throttled_periods_total"
	ContainerPeriods             = "container_cpu_periods_total" // CFS periods the quota was enforced in
	ContainerThrottledSeconds    = "container_cpu_throttled_seconds_total"
	ContainerMemoryUsage         = "container_memory_usage_bytes"
	ContainerMemoryWorkingSet    = "container_memory_working_set_bytes"
	ContainerPids                = "container_pids_current"
	ContainerNetworkReceiveBytes = "container_network_rx_bytes"
	ContainerNetworkSendBytes    = "container_network_tx_bytes"
)

// statsStream follows one container's stats stream. Engine 20.10 samples
// every container it reports on once a second and answers even a one-shot
// request at its next sample, up to a second later; a stream delivers each
// sample as it is taken, with the previous one's CPU figures alongside.
type statsStream struct {
	source   StatsSource
	id       string
	cpuLimit float64       // CPUs; 0 means the CPUs the engine reports online
	interval time.Duration // samples closer than this to the last one kept are skipped
	file     func(at time.Time, samples []Sample, err error)
}

// run follows the stream until ctx ends, reopening it one interval after it
// fails; each failure is filed.
func (s *statsStream) run(ctx context.Context) {
	for {
		err := s.follow(ctx)
		if ctx.Err() != nil {
			return
		}
		s.file(time.Now(), nil, err)
		timer := time.NewTimer(s.interval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}

// follow files the stream's samples, at most one per interval, until the
// stream fails or ctx ends.
func (s *statsStream) follow(ctx context.Context) error {
	res, err := s.source.ContainerStats(ctx, s.id, client.ContainerStatsOptions{Stream: true})
	if err != nil {
		return fmt.Errorf("container stats: %w", err)
	}
	defer res.Body.Close()
	dec := json.NewDecoder(res.Body)
	var last time.Time
	for {
		var st container.StatsResponse
		if err := dec.Decode(&st); errors.Is(err, io.EOF) {
			return errors.New("container stats: the engine ended the stream")
		} else if err != nil {
			return fmt.Errorf("container stats: %w", err)
		}
		at := st.Read
		if at.IsZero() {
			at = time.Now()
		}
		// 10% slack: the engine's one-second ticks drift by milliseconds.
		if !last.IsZero() && at.Sub(last) < s.interval*9/10 {
			continue
		}
		last = at
		s.file(at, containerSamples(st, s.cpuLimit), nil)
	}
}

// cpuRatio is the CPU used between the previous sample and this one as a
// share of the container's CPU limit: 1 means it used all it may. The first
// sample of a stream has no previous one.
func cpuRatio(st container.StatsResponse, cpuLimit float64) (float64, bool) {
	cur, prev := st.CPUStats.CPUUsage.TotalUsage, st.PreCPUStats.CPUUsage.TotalUsage
	elapsed := st.Read.Sub(st.PreRead).Seconds()
	if st.PreRead.IsZero() || prev == 0 || cur < prev || elapsed <= 0 {
		return 0, false
	}
	if cpuLimit <= 0 {
		cpuLimit = max(float64(st.CPUStats.OnlineCPUs), 1)
	}
	return float64(cur-prev) / 1e9 / (elapsed * cpuLimit), true
}

// containerSamples turns one stats payload into samples. Networks are absent
// with host networking; their series are then absent too.
func containerSamples(st container.StatsResponse, cpuLimit float64) []Sample {
	cpu, mem := st.CPUStats, st.MemoryStats
	samples := []Sample{
		{Name: ContainerCPUSeconds, Value: float64(cpu.CPUUsage.TotalUsage) / 1e9},
		{Name: ContainerThrottledPeriods, Value: float64(cpu.ThrottlingData.ThrottledPeriods)},
		{Name: ContainerPeriods, Value: float64(cpu.ThrottlingData.Periods)},
		{Name: ContainerThrottledSeconds, Value: float64(cpu.ThrottlingData.ThrottledTime) / 1e9},
		{Name: ContainerMemoryUsage, Value: float64(mem.Usage)},
		{Name: ContainerMemoryWorkingSet, Value: float64(WorkingSet(mem))},
		{Name: ContainerPids, Value: float64(st.PidsStats.Current)},
	}
	if ratio, ok := cpuRatio(st, cpuLimit); ok {
		samples = append(samples, Sample{Name: ContainerCPURatio, Value: ratio})
	}
	if len(st.Networks) > 0 {
		var rx, tx uint64
		for _, n := range st.Networks {
			rx += n.RxBytes
			tx += n.TxBytes
		}
		samples = append(samples,
			Sample{Name: ContainerNetworkReceiveBytes, Value: float64(rx)},
			Sample{Name: ContainerNetworkSendBytes, Value: float64(tx)})
	}
	return samples
}

// WorkingSet is the memory the container cannot give back without
// swapping: its usage less the inactive page cache, as the kubelet and
// docker stats count it. cgroup v1 reports the hierarchy's inactive cache as
// total_inactive_file, cgroup v2 as inactive_file.
func WorkingSet(mem container.MemoryStats) uint64 {
	inactive, ok := mem.Stats["total_inactive_file"]
	if !ok {
		inactive = mem.Stats["inactive_file"]
	}
	if inactive > mem.Usage {
		return 0
	}
	return mem.Usage - inactive
}

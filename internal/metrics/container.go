package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// StatsSource reads a container's stats from the Docker engine. The engine
// client testcontainers-go uses (*client.Client of github.com/moby/moby) and
// client.APIClient satisfy it.
type StatsSource interface {
	ContainerStats(ctx context.Context, containerID string, options client.ContainerStatsOptions) (client.ContainerStatsResult, error)
}

// Container series names.
const (
	ContainerCPUSeconds          = "container_cpu_usage_seconds_total"
	ContainerCPURatio            = "container_cpu_usage_ratio"
	ContainerThrottledPeriods    = "container_cpu_throttled_periods_total"
	ContainerThrottledSeconds    = "container_cpu_throttled_seconds_total"
	ContainerMemoryUsage         = "container_memory_usage_bytes"
	ContainerMemoryWorkingSet    = "container_memory_working_set_bytes"
	ContainerPids                = "container_pids_current"
	ContainerNetworkReceiveBytes = "container_network_rx_bytes"
	ContainerNetworkSendBytes    = "container_network_tx_bytes"
)

// statsReader reads one container's stats each tick and turns them into
// samples. It remembers the previous CPU reading for the usage ratio, so it
// is used by one goroutine at a time.
type statsReader struct {
	source   StatsSource
	id       string
	cpuLimit float64 // CPUs; 0 means the CPUs the engine reports online
	prev     *cpuReading
}

// cpuReading is the container's CPU time at an instant.
type cpuReading struct {
	at    time.Time
	usage uint64 // ns
}

// read takes a one-shot sample: no previous sample is collected, so the
// engine answers at once instead of after a second.
func (r *statsReader) read(ctx context.Context, at time.Time) ([]Sample, error) {
	res, err := r.source.ContainerStats(ctx, r.id, client.ContainerStatsOptions{})
	if err != nil {
		return nil, fmt.Errorf("container stats: %w", err)
	}
	defer res.Body.Close()
	var st container.StatsResponse
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil {
		return nil, fmt.Errorf("decode container stats: %w", err)
	}
	if st.Read.IsZero() {
		st.Read = at
	}
	samples := containerSamples(st)
	if ratio, ok := r.cpuRatio(st); ok {
		samples = append(samples, Sample{Name: ContainerCPURatio, Value: ratio})
	}
	return samples, nil
}

// cpuRatio is the CPU used since the previous reading as a share of the
// container's CPU limit: 1 means the container used all it may.
func (r *statsReader) cpuRatio(st container.StatsResponse) (float64, bool) {
	cur := &cpuReading{at: st.Read, usage: st.CPUStats.CPUUsage.TotalUsage}
	prev := r.prev
	r.prev = cur
	if prev == nil || cur.usage < prev.usage || !cur.at.After(prev.at) {
		return 0, false
	}
	limit := r.cpuLimit
	if limit <= 0 {
		limit = max(float64(st.CPUStats.OnlineCPUs), 1)
	}
	used := float64(cur.usage-prev.usage) / 1e9
	return used / (cur.at.Sub(prev.at).Seconds() * limit), true
}

// containerSamples turns one stats payload into samples. Networks are absent
// with host networking; their series are then absent too.
func containerSamples(st container.StatsResponse) []Sample {
	cpu, mem := st.CPUStats, st.MemoryStats
	samples := []Sample{
		{Name: ContainerCPUSeconds, Value: float64(cpu.CPUUsage.TotalUsage) / 1e9},
		{Name: ContainerThrottledPeriods, Value: float64(cpu.ThrottlingData.ThrottledPeriods)},
		{Name: ContainerThrottledSeconds, Value: float64(cpu.ThrottlingData.ThrottledTime) / 1e9},
		{Name: ContainerMemoryUsage, Value: float64(mem.Usage)},
		{Name: ContainerMemoryWorkingSet, Value: float64(WorkingSet(mem))},
		{Name: ContainerPids, Value: float64(st.PidsStats.Current)},
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

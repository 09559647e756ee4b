package metrics_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
)

func TestWorkingSet(t *testing.T) {
	tests := []struct {
		fixture string
		want    uint64
	}{
		// cgroup v1 (captured): usage less total_inactive_file.
		{"stats-cgroupv1.json", 52817920 - 32768},
		// cgroup v2: usage less inactive_file.
		{"stats-cgroupv2.json", 61440000 - 12582912},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			st := readStats(t, tt.fixture)
			if got := metrics.WorkingSet(st.MemoryStats); got != tt.want {
				t.Errorf("WorkingSet = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestWorkingSet_Edges(t *testing.T) {
	tests := []struct {
		name string
		mem  container.MemoryStats
		want uint64
	}{
		{"v1 prefers the hierarchy's total", container.MemoryStats{Usage: 100, Stats: map[string]uint64{"inactive_file": 10, "total_inactive_file": 30}}, 70},
		{"no stats: usage", container.MemoryStats{Usage: 100}, 100},
		{"inactive above usage: zero, not a wrap-around", container.MemoryStats{Usage: 10, Stats: map[string]uint64{"inactive_file": 30}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := metrics.WorkingSet(tt.mem); got != tt.want {
				t.Errorf("WorkingSet = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestRecording_ContainerSeries streams the captured v1 payload through a
// recording and checks the container series it files.
func TestRecording_ContainerSeries(t *testing.T) {
	payload, err := os.ReadFile(filepath.Join("testdata", "stats-cgroupv1.json"))
	if err != nil {
		t.Fatal(err)
	}
	engine := newStream(string(payload))
	rec := metrics.NewSampler(engine.source(nil)).Start(t.Context(), metrics.Target{Name: "go", ContainerID: "abc", CPULimit: 0.5})
	<-engine.drained
	res := rec.Stop(t.Context(), nil, nil)

	if got, want := engine.calls[0], (call{"abc", client.ContainerStatsOptions{Stream: true}}); got != want {
		t.Errorf("stats call %+v, want %+v", got, want)
	}
	if res.StatsFailures != 0 || res.ScrapeFailures != 0 {
		t.Errorf("stats failures %d, scrape failures %d; want none (%s)", res.StatsFailures, res.ScrapeFailures, res.LastError)
	}
	want := map[string]float64{
		metrics.ContainerCPUSeconds:       0.937306055,
		metrics.ContainerThrottledPeriods: 13,
		metrics.ContainerPeriods:          23,
		metrics.ContainerThrottledSeconds: 0.695873955,
		metrics.ContainerMemoryUsage:      52817920,
		metrics.ContainerMemoryWorkingSet: 52817920 - 32768,
		metrics.ContainerPids:             16,
	}
	got := lastValues(res.Series)
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s = %v, want %v", name, got[name], v)
		}
	}
	// Host networking: no interfaces, so no network series; a one-shot
	// capture has no previous sample, so no CPU ratio.
	for _, name := range []string{metrics.ContainerNetworkReceiveBytes, metrics.ContainerCPURatio} {
		if _, ok := got[name]; ok {
			t.Errorf("series %s present", name)
		}
	}
}

// TestRecording_CPURatio checks the CPU share of the limit between a
// frame's previous sample and its own.
func TestRecording_CPURatio(t *testing.T) {
	tests := []struct {
		name     string
		cpuLimit float64
		usedNs   uint64 // between two reads 2s apart
		want     float64
	}{
		{"half of 1 CPU", 1, 1e9, 0.5},
		{"all of 0.5 CPU", 0.5, 1e9, 1},
		{"a quarter of 2 CPUs", 2, 1e9, 0.25},
		{"no limit: the 2 online CPUs", 0, 2e9, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			engine := newStream(statsJSON(read, 5e9, read.Add(-2*time.Second), 5e9-tt.usedNs, map[string][2]uint64{"eth0": {100, 200}, "eth1": {1, 2}}))
			rec := metrics.NewSampler(engine.source(nil)).Start(t.Context(), metrics.Target{Name: "go", ContainerID: "abc", CPULimit: tt.cpuLimit})
			<-engine.drained
			got := lastValues(rec.Stop(t.Context(), nil, nil).Series)
			if math.Abs(got[metrics.ContainerCPURatio]-tt.want) > 1e-9 {
				t.Errorf("%s = %v, want %v", metrics.ContainerCPURatio, got[metrics.ContainerCPURatio], tt.want)
			}
			if got[metrics.ContainerNetworkReceiveBytes] != 101 || got[metrics.ContainerNetworkSendBytes] != 202 {
				t.Errorf("network rx %v tx %v, want 101 and 202 summed over interfaces",
					got[metrics.ContainerNetworkReceiveBytes], got[metrics.ContainerNetworkSendBytes])
			}
		})
	}
}

// TestRecording_StatsInterval streams a frame every 250ms of engine time: a
// 1s interval keeps every fourth, on the frames' own clock.
func TestRecording_StatsInterval(t *testing.T) {
	read := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var frames []string
	for i := range 9 {
		at := read.Add(time.Duration(i) * 250 * time.Millisecond)
		frames = append(frames, statsJSON(at, uint64(i+1)*1e8, at.Add(-250*time.Millisecond), uint64(i)*1e8+1, nil))
	}
	engine := newStream(frames...)
	rec := metrics.NewSampler(engine.source(nil), metrics.WithInterval(time.Second)).Start(t.Context(), metrics.Target{Name: "go", ContainerID: "abc", CPULimit: 1})
	<-engine.drained
	rec.SetT0(read)
	res := rec.Stop(t.Context(), nil, nil)
	var got []bench.Point
	for _, s := range res.Series {
		if s.Name == metrics.ContainerCPUSeconds {
			got = s.Points
		}
	}
	want := []bench.Point{{T: 0, V: 0.1}, {T: 1, V: 0.5}, {T: 2, V: 0.9}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v, want %v", metrics.ContainerCPUSeconds, got, want)
	}
}

// TestRecording_StatsFailures: a stream that breaks is reopened one interval
// later; each failure is counted.
func TestRecording_StatsFailures(t *testing.T) {
	engine := newStream("{not json")
	rec := metrics.NewSampler(engine.source(errors.New("no such container")), metrics.WithInterval(time.Millisecond)).
		Start(t.Context(), metrics.Target{Name: "go", ContainerID: "abc"})
	waitFor(t, func() bool { engine.mu.Lock(); defer engine.mu.Unlock(); return len(engine.calls) > 3 })
	res := rec.Stop(t.Context(), nil, nil)
	if res.StatsFailures < 3 {
		t.Errorf("stats failures = %d after %d calls, want at least 3", res.StatsFailures, len(engine.calls))
	}
	if !strings.Contains(res.LastError, "no such container") {
		t.Errorf("last error %q", res.LastError)
	}
	if len(res.Series) != 0 {
		t.Errorf("series %v, want none", res.Series)
	}
}

// statsJSON is a minimal stream frame: its read time and CPU usage, the
// previous frame's, and networks as interface -> {rx, tx}.
func statsJSON(read time.Time, usageNs uint64, preRead time.Time, preUsageNs uint64, networks map[string][2]uint64) string {
	st := container.StatsResponse{Read: read, PreRead: preRead}
	st.CPUStats.CPUUsage.TotalUsage = usageNs
	st.CPUStats.OnlineCPUs = 2
	st.PreCPUStats.CPUUsage.TotalUsage = preUsageNs
	for name, n := range networks {
		if st.Networks == nil {
			st.Networks = map[string]container.NetworkStats{}
		}
		st.Networks[name] = container.NetworkStats{RxBytes: n[0], TxBytes: n[1]}
	}
	b, err := json.Marshal(st)
	if err != nil {
		panic(fmt.Sprintf("marshal stats: %v", err))
	}
	return string(b)
}

func readStats(t *testing.T, fixture string) container.StatsResponse {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	var st container.StatsResponse
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// lastValues maps each unlabelled series to its last value.
func lastValues(series []bench.Series) map[string]float64 {
	out := map[string]float64{}
	for _, s := range series {
		if len(s.Labels) == 0 && len(s.Points) > 0 {
			out[s.Name] = s.Points[len(s.Points)-1].V
		}
	}
	return out
}

// waitFor polls cond until it holds, failing the test after 5s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

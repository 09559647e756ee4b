package runner

import (
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
)

func TestSplitCPUs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cpus         int
		target, load string
		applied      bool
	}{
		{0, "", "", false},       // unknown CPU count: leave both unpinned
		{1, "", "", false},       // nothing to split: target and load share the CPU
		{2, "1", "0", true},      // this project's CI machine
		{4, "3", "0-2", true},    // the target gets one CPU, load the rest
		{16, "15", "0-14", true}, // still one CPU for the target: all targets get the same
	}
	for _, tt := range tests {
		target, load, applied := splitCPUs(tt.cpus)
		if target != tt.target || load != tt.load || applied != tt.applied {
			t.Errorf("splitCPUs(%d) = %q, %q, %v; want %q, %q, %v", tt.cpus, target, load, applied, tt.target, tt.load, tt.applied)
		}
	}
}

func TestParseCPUSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		want  []int
		valid bool
	}{
		{"0", []int{0}, true},
		{"0-2,4", []int{0, 1, 2, 4}, true},
		{"3-1", nil, false}, // reversed range
		{"x", nil, false},
		{"", nil, false},
	}
	for _, tt := range tests {
		set, err := parseCPUSet(tt.in)
		if (err == nil) != tt.valid {
			t.Errorf("parseCPUSet(%q) err = %v, want valid=%v", tt.in, err, tt.valid)
			continue
		}
		if !tt.valid {
			continue
		}
		if got := set.Count(); got != len(tt.want) {
			t.Errorf("parseCPUSet(%q) has %d CPUs, want %d", tt.in, got, len(tt.want))
		}
		for _, cpu := range tt.want {
			if !set.IsSet(cpu) {
				t.Errorf("parseCPUSet(%q) lacks CPU %d", tt.in, cpu)
			}
		}
	}
}

func TestHubDeliversAndFinishCloses(t *testing.T) {
	t.Parallel()
	h := NewHub()
	ch, _ := h.Subscribe("r1")
	other, _ := h.Subscribe("r2")
	h.Publish(bench.Event{Type: bench.EventRun, RunID: "r1", RunStatus: bench.RunRunning})
	if ev := <-ch; ev.RunStatus != bench.RunRunning {
		t.Fatalf("got %+v, want the running event", ev)
	}
	h.Finish("r1")
	if _, open := <-ch; open {
		t.Fatal("channel still open after Finish")
	}
	select {
	case ev := <-other:
		t.Fatalf("r2's subscriber got r1's event %+v", ev)
	default:
	}
}

func TestHubNeverBlocksOnSlowSubscriber(t *testing.T) {
	t.Parallel()
	h := NewHub()
	ch, unsubscribe := h.Subscribe("r1")
	defer unsubscribe()
	for i := 0; i < subscriberBuffer*4; i++ { // would deadlock if Publish blocked
		h.Publish(bench.Event{Type: bench.EventSecond, RunID: "r1"})
	}
	if got := len(ch); got != subscriberBuffer {
		t.Fatalf("buffered %d events, want %d (the rest dropped)", got, subscriberBuffer)
	}
	// A state change that cannot be delivered cuts the lagging reader off.
	h.Publish(bench.Event{Type: bench.EventRun, RunID: "r1"})
	n := 0
	for range ch {
		n++
	}
	if n != subscriberBuffer {
		t.Fatalf("drained %d events before close, want %d", n, subscriberBuffer)
	}
}

// A search given no start rate starts at a thread pool's bound where the
// target has a pool and the workload's service time is known, within the
// search's highest rate; elsewhere at the default.
func TestCapacityStartRate(t *testing.T) {
	t.Parallel()
	heavy := bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Params: map[string]string{"duration": "200"}}}}
	light := bench.Workload{Requests: []bench.Request{{Endpoint: "light"}}}
	platform := bench.TargetResult{Settings: map[string]string{"javaThreadModel": "platform", "tomcatMaxThreads": "200"}}
	virtual := bench.TargetResult{Settings: map[string]string{"javaThreadModel": "virtual", "tomcatMaxThreads": "200"}}
	cfg := capacity.Config{CapacitySpec: bench.CapacitySpec{MaxRate: 20000}}
	for _, tt := range []struct {
		name string
		w    bench.Workload
		tr   bench.TargetResult
		max  float64
		rate float64
		from string
	}{
		{"platform on heavy", heavy, platform, 20000, 1000, "its 200-thread pool's bound (200 threads ÷ 0.200 s service time)"},
		{"under the highest rate", heavy, platform, 600, 600, "its 200-thread pool's bound (200 threads ÷ 0.200 s service time)"},
		{"virtual threads", heavy, virtual, 20000, capacity.DefaultStartRate, ""},
		{"no known service time", light, platform, 20000, capacity.DefaultStartRate, ""},
	} {
		cfg.MaxRate = tt.max
		rate, from := startRate(cfg, tt.w, tt.tr)
		if rate != tt.rate || from != tt.from {
			t.Errorf("%s: %g, %q; want %g, %q", tt.name, rate, from, tt.rate, tt.from)
		}
	}
}

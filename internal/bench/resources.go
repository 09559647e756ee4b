package bench

import "encoding/json"

// Gauge is a figure sampled during a stage: its highest and its mean value.
type Gauge struct {
	Peak float64 `json:"peak"`
	Mean float64 `json:"mean"`
}

// StageResources summarises a target's resource use during one stage, from
// the metrics scraped while it ran. Threads are keyed by thread kind
// (ThreadPlatform, ThreadVirtual...), Memory by memory figure
// (MemoryWorkingSet...), in bytes: a runtime reports the kinds it has.
type StageResources struct {
	Stage           int              `json:"stage"`
	Warmup          bool             `json:"warmup,omitempty"`
	Threads         map[string]Gauge `json:"threads,omitempty"`
	Memory          map[string]Gauge `json:"memory,omitempty"`
	CPUSecondsPer1k float64          `json:"cpuSecondsPer1k,omitempty"`
	GCPauses        float64          `json:"gcPauses,omitempty"`
	GCPauseSeconds  float64          `json:"gcPauseSeconds,omitempty"`
	// Pinned is how many times a virtual thread pinned its carrier (JFR's
	// jdk.VirtualThreadPinned, Java targets), PinnedSeconds for how long.
	Pinned        float64 `json:"pinned,omitempty"`
	PinnedSeconds float64 `json:"pinnedSeconds,omitempty"`
	// SubmitFailed is how many times starting or unparking a virtual
	// thread failed (JFR's jdk.VirtualThreadSubmitFailed).
	SubmitFailed float64 `json:"submitFailed,omitempty"`
	// Scheduler is the virtual-thread scheduler as the JVM reports it (JDK
	// 24 on), keyed by Scheduler... figure.
	Scheduler map[string]Gauge `json:"scheduler,omitempty"`
	// Pool is the target's database connection pool as it sees it
	// (HikariCP's own series, or the Go target's under the same names),
	// keyed by Pool... figure; PoolTimeouts are the requests that gave up
	// waiting for a connection in the stage, PoolAcquireMs the mean time a
	// connection took to get, PoolUsageMs the mean time one was held, from
	// got to given back, by the pool's own timer (hikaricp_connections_
	// usage_seconds; 0 where the pool does not expose it).
	Pool          map[string]Gauge `json:"pool,omitempty"`
	PoolTimeouts  float64          `json:"poolTimeouts,omitempty"`
	PoolAcquireMs float64          `json:"poolAcquireMs,omitempty"`
	PoolUsageMs   float64          `json:"poolUsageMs,omitempty"`
	// ServerMs is the mean time a request of the stage spent in the
	// target's handlers, in ms, by its own count (http_server_requests_
	// seconds); 0 where the target does not expose it.
	ServerMs float64 `json:"serverMs,omitempty"`
	// WakeDelayMs is how late, on average, a thread of the kind that runs
	// the target's requests ran again after a sleep ended: the wait a
	// woken thread had for a CPU (on virtual threads, for a carrier), by
	// the built-in targets' probe; 0 where the target has none.
	WakeDelayMs    float64 `json:"wakeDelayMs,omitempty"`
	ScrapeFailures int     `json:"scrapeFailures,omitempty"`
}

// The virtual-thread scheduler's figures, as StageResources.Scheduler
// keys them.
const (
	SchedulerParallelism = "parallelism" // the carriers it aims for
	SchedulerPoolSize    = "poolSize"    // the carriers it started and that live
	SchedulerMounted     = "mounted"     // virtual threads on a carrier
	SchedulerQueued      = "queued"      // virtual threads waiting for one
)

// The connection pool's figures, as StageResources.Pool keys them.
const (
	PoolActive  = "active"  // connections lent out
	PoolIdle    = "idle"    // connections waiting in the pool
	PoolPending = "pending" // requests waiting for a connection
	PoolTotal   = "total"   // connections open
	PoolMax     = "max"     // the pool's size
)

// UnmarshalJSON reads the current document and, for runs stored before
// resources were keyed, the fixed fields they had.
func (r *StageResources) UnmarshalJSON(b []byte) error {
	type current StageResources
	var doc struct {
		current
		PeakPlatformThreads  float64 `json:"peakPlatformThreads"`
		MeanPlatformThreads  float64 `json:"meanPlatformThreads"`
		PeakVirtualThreads   float64 `json:"peakVirtualThreads"`
		MeanVirtualThreads   float64 `json:"meanVirtualThreads"`
		PeakGoroutines       float64 `json:"peakGoroutines"`
		MeanGoroutines       float64 `json:"meanGoroutines"`
		PeakWorkingSetBytes  float64 `json:"peakWorkingSetBytes"`
		PeakThreadStackBytes float64 `json:"peakThreadStackBytes"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	*r = StageResources(doc.current)
	legacy := []struct {
		into       *map[string]Gauge
		key        string
		peak, mean float64
	}{
		{&r.Threads, ThreadPlatform, doc.PeakPlatformThreads, doc.MeanPlatformThreads},
		{&r.Threads, ThreadVirtual, doc.PeakVirtualThreads, doc.MeanVirtualThreads},
		{&r.Threads, ThreadGoroutine, doc.PeakGoroutines, doc.MeanGoroutines},
		{&r.Memory, MemoryWorkingSet, doc.PeakWorkingSetBytes, 0},
		{&r.Memory, MemoryThreadStacks, doc.PeakThreadStackBytes, 0},
	}
	for _, l := range legacy {
		if l.peak == 0 && l.mean == 0 {
			continue
		}
		if *l.into == nil {
			*l.into = map[string]Gauge{}
		}
		if _, ok := (*l.into)[l.key]; !ok {
			(*l.into)[l.key] = Gauge{Peak: l.peak, Mean: l.mean}
		}
	}
	return nil
}

// Thread returns the gauge of a thread kind, zero when not reported.
func (r StageResources) Thread(kind string) Gauge { return r.Threads[kind] }

// MemoryGauge returns a memory figure, zero when not reported.
func (r StageResources) MemoryGauge(figure string) Gauge { return r.Memory[figure] }

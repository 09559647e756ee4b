package metrics

import (
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
)

// Series names the tables, the why and the charts read, as the targets
// expose them (Micrometer's names on a JVM, client_golang's on Go, the
// targets' own: targets/CONTRACT.md). Every other room reads them here.
const (
	JVMThreadsVirtualLive  = "jvm_threads_virtual_live_threads" // mounted or queued, by scheduling_status
	JVMThreadStacks        = "jvm_nmt_thread_committed_bytes"
	JVMThreadStacksReserve = "jvm_nmt_thread_reserved_bytes"
	CarrierThreads         = "threadbench_carrier_threads"
	TomcatBusyThreads      = "tomcat_threads_busy_threads"
	GoThreads              = "go_threads"
	GoGoroutines           = "go_goroutines"
	GoStackInuse           = "go_memstats_stack_inuse_bytes"
	GoHeapInuse            = "go_memstats_heap_inuse_bytes"
	GoGCPauses             = "go_gc_duration_seconds_count"
	GoGCPauseSeconds       = "go_gc_duration_seconds_sum"
	// Spring's timer of requests in flight (Actuator): Micrometer on
	// Prometheus' client 1.x (Spring Boot 3.3 on) writes its active count as
	// _count, older ones as _active_count.
	ActiveRequests      = "http_server_requests_active_seconds_count"
	ActiveRequestsOlder = "http_server_requests_active_seconds_active_count"
	// What a JVM says about its virtual threads (VirtualThreadMetrics), and
	// the built-in Java target's own count of its pins.
	VirtualPinned          = "jvm_threads_virtual_pinned_seconds_count"
	VirtualPinnedSeconds   = "jvm_threads_virtual_pinned_seconds_sum"
	VirtualSubmitFailed    = "jvm_threads_virtual_submit_failed_total"
	VirtualParallelism     = "jvm_threads_virtual_parallelism"
	VirtualPoolSize        = "jvm_threads_virtual_pool_size_threads"
	OwnVirtualPinned       = "threadbench_virtual_pinned_total"
	OwnVirtualPinnedSecond = "threadbench_virtual_pinned_seconds_sum"
)

// GCPauseCounts and GCPauseSeconds are the counters of collection pauses
// and of their time, a JVM's and a Go program's: a target exposes one of
// each.
var (
	GCPauseCounts  = []string{JVMGCPauses, GoGCPauses}
	GCPauseSeconds = []string{JVMGCPauseSeconds, GoGCPauseSeconds}
)

// The series the built-in targets' and a Spring Boot service's thread and
// memory figures are read from (a catalog entry's Threads and Memory).
var (
	JavaThreads = []bench.FigureSource{
		{Figure: bench.ThreadPlatform, Series: []bench.SeriesRef{{Name: JVMThreadsLive}}},
		{Figure: bench.ThreadCarrier, Series: []bench.SeriesRef{{Name: CarrierThreads}}},
		// Requests in flight on virtual threads, each holding one, parked or
		// not; Micrometer's live count leaves parked ones out.
		{Figure: bench.ThreadVirtual, Series: []bench.SeriesRef{
			{Name: InflightRequests, Label: "thread", Value: bench.ThreadVirtual},
			{Name: JVMThreadsVirtualLive},
		}},
	}
	JavaMemory = []bench.FigureSource{
		{Figure: bench.MemoryThreadStacks, Series: []bench.SeriesRef{{Name: JVMThreadStacks}}},
		// Reserved too: a platform thread reserves its whole stack (1 MiB)
		// and commits pages as it touches them; seed 001 reads both.
		{Figure: bench.MemoryThreadStacksReserved, Series: []bench.SeriesRef{{Name: JVMThreadStacksReserve}}},
		{Figure: bench.MemoryHeap, Series: []bench.SeriesRef{{Name: JVMMemoryUsed, Label: areaLabel, Value: areaHeap}}},
	}
	GoThreadSources = []bench.FigureSource{
		{Figure: bench.ThreadPlatform, Series: []bench.SeriesRef{{Name: GoThreads}}},
		{Figure: bench.ThreadGoroutine, Series: []bench.SeriesRef{{Name: GoGoroutines}}},
	}
	GoMemory = []bench.FigureSource{
		{Figure: bench.MemoryThreadStacks, Series: []bench.SeriesRef{{Name: GoStackInuse}}},
		{Figure: bench.MemoryHeap, Series: []bench.SeriesRef{{Name: GoHeapInuse}}},
	}
	ActuatorThreads = []bench.FigureSource{
		{Figure: bench.ThreadPlatform, Series: []bench.SeriesRef{{Name: JVMThreadsLive}}},
	}
	// On virtual threads every request in flight holds one, parked or not:
	// Spring's active-request timer counts them (the JVM exposes no count
	// of virtual threads).
	ActuatorVirtualThreads = append(slices.Clone(ActuatorThreads), bench.FigureSource{
		Figure: bench.ThreadVirtual, Series: []bench.SeriesRef{{Name: ActiveRequestsOlder}, {Name: ActiveRequests}},
	})
	ActuatorMemory = []bench.FigureSource{
		{Figure: bench.MemoryHeap, Series: []bench.SeriesRef{{Name: JVMMemoryUsed, Label: areaLabel, Value: areaHeap}}},
	}
)

package metrics

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Sample is one value of a curated series: a name as exposed (a summary's
// _count and _sum are two names), the labels kept, and the value.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// key identifies the series a sample belongs to: its name and its labels,
// sorted.
func (s Sample) key() string {
	var b strings.Builder
	b.WriteString(s.Name)
	for _, k := range slices.Sorted(maps.Keys(s.Labels)) {
		fmt.Fprintf(&b, "\x00%s=%s", k, s.Labels[k])
	}
	return b.String()
}

// String writes the sample the way an exposition would, labels sorted.
func (s Sample) String() string {
	var labels []string
	for _, k := range slices.Sorted(maps.Keys(s.Labels)) {
		labels = append(labels, fmt.Sprintf("%s=%q", k, s.Labels[k]))
	}
	value := fmt.Sprint(s.Value)
	if len(labels) == 0 {
		return s.Name + " " + value
	}
	return s.Name + "{" + strings.Join(labels, ",") + "} " + value
}

// A JVM's series, as Micrometer names them, which the tables and the
// warm-up read. A JVM without Micrometer gets them from its perf counters
// (perfdata.go), labelled SourceLabel=SourcePerfData.
const (
	JVMThreadsLive     = "jvm_threads_live_threads"      // live platform threads
	JVMMemoryUsed      = "jvm_memory_used_bytes"         // by area: heap, nonheap
	JVMMemoryCommitted = "jvm_memory_committed_bytes"    // by area: heap, nonheap
	JVMGCPauses        = "jvm_gc_pause_seconds_count"    // collection pauses since start
	JVMGCPauseSeconds  = "jvm_gc_pause_seconds_sum"      // time in them
	JVMCompilationMs   = "jvm_compilation_time_ms_total" // JIT compilation time since start, ms
)

// The label that splits the JVM's memory series, and its heap's value.
const (
	areaLabel = "area"
	areaHeap  = "heap"
)

// InflightRequests is the targets' gauge of requests being handled,
// labelled thread="platform", "virtual" or "goroutine" by what runs them.
const InflightRequests = "threadbench_inflight_requests"

// The count and the total time of the requests a target's handlers served
// (Spring's http_server_requests_seconds, the Go target's of the same
// name), summed over their labels: the time a request spent inside the
// target, which set beside the time the load generator saw says how much
// passed outside it.
const (
	ServerRequestsCount   = "http_server_requests_seconds_count"
	ServerRequestsSeconds = "http_server_requests_seconds_sum"
)

// The count and the summed lateness of the built-in targets' wake-up
// probe: one thread of the kind that runs requests (a virtual thread, a
// platform thread, a goroutine) sleeping 10 ms over and over, late by the
// wait a woken thread has for a CPU, a carrier on virtual threads
// (targets/CONTRACT.md).
const (
	WakeDelayCount   = "threadbench_wake_delay_seconds_count"
	WakeDelaySeconds = "threadbench_wake_delay_seconds_sum"
)

// curated lists the exposed names kept and, for each, the labels that tell
// its series apart; samples that differ only in other labels are summed
// (GC pauses over gc, action and cause; memory pools into their area).
var curated = map[string][]string{
	// Threads. With Micrometer, jvm_threads_live_threads counts platform
	// threads only (carriers included); jvm_threads_virtual_live_threads
	// counts virtual threads mounted on or queued for a carrier, not the
	// parked ones. The targets' own threadbench_inflight_requests counts
	// requests being handled by the kind of thread running them, one thread
	// each, parked or not (targets/CONTRACT.md).
	InflightRequests:                         {"thread"},
	JVMThreadsLive:                           nil,
	"jvm_threads_peak_threads":               nil, // the JVM's own peak since it started
	"jvm_threads_states_threads":             {"state"},
	TomcatBusyThreads:                        nil,
	"tomcat_threads_current_threads":         nil,
	"tomcat_connections_current_connections": nil,
	JVMThreadsVirtualLive:                    {"scheduling_status"},
	VirtualParallelism:                       nil,
	VirtualPoolSize:                          nil,
	VirtualPinned:                            nil,
	VirtualPinnedSeconds:                     nil,
	VirtualSubmitFailed:                      nil,
	// The Java target's own: JFR's jdk.VirtualThreadPinned events streamed
	// in-process, and the carrier threads alive (targets/CONTRACT.md).
	OwnVirtualPinned: nil,
	"threadbench_virtual_pinned_seconds_count": nil,
	OwnVirtualPinnedSecond:                     nil,
	CarrierThreads:                             nil,
	// Spring's timer of requests in flight (Actuator), summed over its
	// labels: a service of one's own on virtual threads holds one each.
	// Micrometer on Prometheus' client 1.x writes the count as _count,
	// older ones as _active_count.
	ActiveRequests:      nil,
	ActiveRequestsOlder: nil,
	GoGoroutines:        nil,
	GoThreads:           nil,
	// Requests served, and the time in the handlers.
	ServerRequestsCount:   nil,
	ServerRequestsSeconds: nil,
	// How late a thread of the requests' kind ran after a sleep ended.
	WakeDelayCount:   nil,
	WakeDelaySeconds: nil,
	// Memory.
	JVMMemoryUsed:                          {areaLabel},
	JVMMemoryCommitted:                     {areaLabel},
	GoHeapInuse:                            nil,
	GoStackInuse:                           nil,
	"process_resident_memory_bytes":        nil,
	JVMThreadStacksReserve:                 nil,
	JVMThreadStacks:                        nil,
	"jvm_nmt_thread_stack_reserved_bytes":  nil,
	"jvm_nmt_thread_stack_committed_bytes": nil,
	"jvm_nmt_total_reserved_bytes":         nil,
	"jvm_nmt_total_committed_bytes":        nil,
	// GC.
	JVMGCPauses:       nil,
	JVMGCPauseSeconds: nil,
	GoGCPauses:        nil,
	GoGCPauseSeconds:  nil,
	// JIT: the JVM's accumulated compilation time, which a warm-up until
	// steady reports (still growing in the measured part: not warm yet).
	JVMCompilationMs: nil,
	// CPU: Go's counter is in seconds, Micrometer's in nanoseconds;
	// process_cpu_usage is the JVM's recent share of all CPUs.
	"process_cpu_seconds_total": nil,
	"process_cpu_time_ns_total": nil,
	"process_cpu_usage":         nil,
}

// maxExposition bounds what a scrape reads; the targets expose under 100 KiB.
const maxExposition = 16 << 20

// Extract parses a Prometheus text exposition (format 0.0.4) and returns its
// curated samples, sorted by name and labels. Values that are NaN, infinite
// or negative are left out: Micrometer reports -1 for what it cannot measure
// (Tomcat's busy threads when requests run on virtual threads) and NaN for a
// gauge whose source is gone.
func Extract(r io.Reader) ([]Sample, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(io.LimitReader(r, maxExposition))
	if err != nil {
		return nil, fmt.Errorf("parse exposition: %w", err)
	}
	sums := map[string]*Sample{}
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			for name, value := range values(mf, m) {
				add(sums, name, m.GetLabel(), value)
			}
		}
	}
	out := make([]Sample, 0, len(sums))
	for _, s := range sums {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b Sample) int { return cmp.Compare(a.key(), b.key()) })
	return out, nil
}

// values returns the exposed name and value of each number a metric carries:
// one for a counter, gauge or untyped metric, _count and _sum for a summary
// or a histogram.
func values(mf *dto.MetricFamily, m *dto.Metric) map[string]float64 {
	name := mf.GetName()
	switch mf.GetType() {
	case dto.MetricType_COUNTER:
		return map[string]float64{name: m.GetCounter().GetValue()}
	case dto.MetricType_GAUGE:
		return map[string]float64{name: m.GetGauge().GetValue()}
	case dto.MetricType_UNTYPED:
		return map[string]float64{name: m.GetUntyped().GetValue()}
	case dto.MetricType_SUMMARY:
		s := m.GetSummary()
		return map[string]float64{name + "_count": float64(s.GetSampleCount()), name + "_sum": s.GetSampleSum()}
	case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
		h := m.GetHistogram()
		return map[string]float64{name + "_count": float64(h.GetSampleCount()), name + "_sum": h.GetSampleSum()}
	}
	return nil
}

// add sums a value into its curated series, if the name is curated and the
// value is a measurement.
func add(sums map[string]*Sample, name string, labels []*dto.LabelPair, value float64) {
	keep, ok := curated[name]
	if !ok || math.IsNaN(value) || math.IsInf(value, 0) || value < 0 {
		return
	}
	s := Sample{Name: name, Labels: keptLabels(labels, keep)}
	if prev, ok := sums[s.key()]; ok {
		prev.Value += value
		return
	}
	s.Value = value
	sums[s.key()] = &s
}

func keptLabels(labels []*dto.LabelPair, keep []string) map[string]string {
	var kept map[string]string
	for _, l := range labels {
		if slices.Contains(keep, l.GetName()) {
			if kept == nil {
				kept = map[string]string{}
			}
			kept[l.GetName()] = l.GetValue()
		}
	}
	return kept
}

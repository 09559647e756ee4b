package bench

// SeriesJITMs is the series of a JVM's accumulated JIT compilation time, in
// ms, under Micrometer's name, which the reader of the JVM's own perf
// counters writes too where a service has no Micrometer: a warm-up until
// steady reads it through Recording.Latest while it runs, and
// WarmupSteady's JITMs from the recorded series.
const SeriesJITMs = "jvm_compilation_time_ms_total"

// SeriesGCPauses and SeriesGCPauseSeconds are a JVM's collection pauses
// since its start and their time, s, under Micrometer's names (the perf
// counters' reader writes them too): a capacity search reads them through
// Recording.Latest to size its rounds to the target's pauses.
const (
	SeriesGCPauses       = "jvm_gc_pause_seconds_count"
	SeriesGCPauseSeconds = "jvm_gc_pause_seconds_sum"
)

package bench

// SeriesJITMs is the series of a JVM's accumulated JIT compilation time, in
// ms, under Micrometer's name, which the reader of the JVM's own perf
// counters writes too where a service has no Micrometer: a warm-up until
// steady reads it through Recording.Latest while it runs, and
// WarmupSteady's JITMs from the recorded series.
const SeriesJITMs = "jvm_compilation_time_ms_total"

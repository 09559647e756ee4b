// Package metrics records a target's resource use while it is under attack.
//
// A Sampler starts one Recording per target. Every interval (1s by default)
// the recording scrapes the target's Prometheus endpoint; alongside it
// follows the container's stats stream from the Docker engine, which samples
// once a second (a one-shot request waits for that sample too, up to a
// second), keeping at most one sample per interval. It keeps a curated set
// of series, all on the attack's clock: t = 0 at the first measured request,
// negative during the warm-up. Samples taken before that instant is known
// are re-based when it is. Stopping a recording summarises the series per stage
// (bench.StageResources) and hands back the raw expositions of the first and
// the last successful scrape for anything the curated series lack.
//
// A JVM whose scrape lacks the JVM's own series (no Prometheus endpoint,
// or one without Micrometer's JVM metrics) gets them from its perf
// counters instead, its hsperfdata file copied out of the container every
// interval (perfdata.go); they are labelled source="hsperfdata".
//
// A failed scrape, stats read or perf data read is counted and reported
// (the last two together, as the container's), never fatal: the attack is
// the measurement, the resources are context.
package metrics

// Package metrics records a target's resource use while it is under attack.
//
// A Sampler starts one Recording per target. Every interval (1s by default)
// the recording scrapes the target's Prometheus endpoint and reads its
// container's stats from the Docker engine (one-shot, which engine 20.10
// answers in milliseconds), and keeps a curated set of series, all on the
// attack's clock: t = 0 at the first measured request, negative during the
// warm-up. Samples taken before that instant is known are re-based when it
// is. Stopping a recording summarises the series per stage
// (bench.StageResources) and hands back the raw expositions of the first and
// the last successful scrape for anything the curated series lack.
//
// A failed scrape or stats read is counted and reported, never fatal: the
// attack is the measurement, the resources are context.
package metrics

// Package trend follows one figure of one target over the runs of one spec
// (throughput, a latency percentile, the error rate) and finds where it
// changed: e-divisive means (Matteson and James 2014), the method Apache
// Otava (formerly Hunter) uses, with a permutation test at a stated
// significance level and a fixed seed, so that the same series always
// gives the same change points. It reads runs through check.Runs and
// analysis, and writes nothing; internal/report renders a Trend.
package trend

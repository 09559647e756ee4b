// Package load offers a workload to a target under a staged profile and
// measures what comes back. It keeps vegeta behind the domain's words: the
// rest of the project hands it a bench.Workload and bench.Profile and gets
// bench.StageResult, bench.Stats and bench.Bucket values back.
//
// Two load models are supported. The open model sends requests on a
// schedule (a piecewise-linear arrival rate) whether or not earlier ones
// have answered, so a slow target cannot slow the generator down
// (no coordinated omission). The closed model keeps a fixed number of
// requests in flight, the way k6 virtual users do.
package load

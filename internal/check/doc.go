// Package check judges a run the way a CI job asks: against objectives per
// target (throughput at least so much, latency percentiles and the error
// rate at most so much) and against a baseline run, whose comparison
// (internal/analysis: significance tests and the minimum effect) fails the
// check when a figure got worse. It also reads the labels a run is stored
// with (--label, a CI job's environment) and picks a baseline by one.
// internal/report renders its Result (table, Markdown, JUnit XML, JSON).
package check

// Package load offers a workload to a target under a staged profile and
// measures what comes back, in the domain's words: it takes a bench.Plan
// and returns bench.StageResult, bench.Stats and bench.Bucket values.
//
// It drives its own workers over fasthttp's HostClient. Measurements
// decided it, on this project's Go target with the generator on one CPU:
// vegeta's attacker reached 0.58x of wrk's requests per second and stamps
// latency at the actual send, which hides queueing; a plain net/http
// client loop reached 0.59x (every net/http connection runs a reading and
// a writing goroutine that each request is handed to and back from);
// fasthttp, which reads and writes on the caller's goroutine and allocates
// nothing per request, 0.90x (scripts/bench.sh measures it against wrk).
// vegeta's attacker remains as a second engine (package load/vegeta,
// profile.engine: vegeta), paced by this package's schedule and recorded by
// its recorder through a Session.
//
// The open model sends on a schedule (a piecewise-linear arrival rate) from
// a bounded set of connections, opened before the clock starts. Each
// worker claims the next request of the schedule itself and sleeps until
// it is due, so that a request costs its worker one timer wake and no
// hand-off; a worker back from a request claims the next one when it is
// due within a millisecond, and otherwise waits idle (the one back last is
// promoted first, so that a steady rate keeps a few workers busy, not all
// of them in turn); when every connection is busy the next request waits
// for one, and its latency
// runs from the time it should have left (wrk2's correction for coordinated
// omission), with the service time from the actual send kept beside it. A request later than its timeout by
// the time a connection frees is dropped and counted, like k6's dropped
// iterations. The closed model keeps a fixed number of clients, each sending
// its next request when the previous one answers.
//
// Latencies are filed by the window a request was scheduled in; throughput
// counts the successful responses that completed within a window, so that it
// can never exceed what the target can serve (Little's law). The generator
// watches itself: its CPU share, how late requests left, how many it
// dropped, and flags a window it may have limited (bench.Generator.Flags).
// Nothing kept grows with the number of requests.
package load

package capacity

import (
	"math"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
)

// everyRequest returns st with its latency percentiles taken over every
// request, those that got no answer counted as slower than any: the
// answered requests' histogram read at q ÷ (1 - unanswered). A window's
// percentiles are of the requests answered, which reads a p99 low when
// some got none: with 0.5 % unanswered, it is the answered ones' 99th
// percentile where over every request it is their 99.5th. Counted so, a
// request that got no answer and one answered later than a bound break
// that bound alike, so that a trial's request timeout above its bounds
// (trialTimeout) changes no verdict. st is returned as it is without
// unanswered requests or a histogram to read; a percentile no answered
// request holds (q ÷ (1 - u) over 1) is left to Check, which breaks it.
func everyRequest(st bench.Stats) bench.Stats {
	u := st.Unanswered()
	if u <= 0 || st.Histogram == "" {
		return st
	}
	h, err := hdr.Decode(st.Histogram)
	if err != nil || h.TotalCount() == 0 {
		return st
	}
	at := func(q float64, stored float64) float64 {
		if q = q / (1 - u); q >= 1 {
			return stored
		}
		return float64(h.ValueAtQuantile(100*q)) / 1000
	}
	l := &st.Latency
	l.P50, l.P90 = at(0.5, l.P50), at(0.9, l.P90)
	l.P95, l.P99, l.P999 = at(0.95, l.P95), at(0.99, l.P99), at(0.999, l.P999)
	return st
}

// trialTimeout is the request timeout of a search's trials: twice the
// largest latency its objective allows, at least a second, at most the
// workload's own (timeout, 0 for the default). A request unanswered that
// long breaks every latency bound of the objective whenever it would
// have been answered (everyRequest), and an overloaded trial no longer
// waits out the workload's timeout: go offered 20,000 req/s drained its
// backlog for 31 s, after which every short trial was reckoned to take
// 34 s and its bisection never ran. It is the workload's own where the
// objective bounds errors (a request that times out is an error, one
// answered late is not) or no latency.
func trialTimeout(o bench.Objective, timeout time.Duration) time.Duration {
	if timeout <= 0 {
		timeout = bench.DefaultTimeout.D()
	}
	bound, ok := o.LatencyBound()
	if !ok || o.Bounds(bench.MetricErrors) {
		return timeout
	}
	t := max(time.Duration(math.Ceil(2*bound))*time.Millisecond, time.Second)
	return min(t, timeout)
}

// TrialTimeout is the request timeout a search of cfg's objective gives
// its trials, the workload's being timeout (see trialTimeout).
func (c Config) TrialTimeout(timeout time.Duration) time.Duration {
	return trialTimeout(c.Objective, timeout)
}

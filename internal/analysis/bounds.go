package analysis

import (
	"fmt"
	"math"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// bounds sets, for each subject of a closed stage, what limits its
// throughput beside what it measured: Little's law (clients ÷ (mean
// latency + think time), what the measured latency allows), the clients'
// ceiling (clients ÷ (service time + think time): no request ever waits)
// and the pool's (threads ÷ service time). The lower ceiling binds. On a
// ramp the clients are their mean over the stage, as the throughput is.
func (a *analysis) bounds(d *scopeData) []bench.Bound {
	sc := d.def
	if sc.stage == nil || !sc.model.LittleBound() {
		return nil
	}
	clients := float64(sc.concurrency)
	clientsDesc := fmt.Sprintf("%d clients", sc.concurrency)
	if sc.ramp {
		clients = float64(sc.from+sc.concurrency) / 2
		clientsDesc = fmt.Sprintf("%s clients on average", units.Num(clients))
	}
	// The requests in flight when the stage began complete within it.
	seconds := sc.duration.D().Seconds()
	inFlight := float64(max(sc.from, sc.concurrency))
	var bounds []bench.Bound
	for _, ss := range d.subs {
		for _, b := range a.subjectBounds(ss, clients, clientsDesc) {
			if seconds > 0 {
				b.Slack = inFlight / seconds
				if b.Kind == bench.BoundPool {
					b.Slack = math.Min(inFlight, float64(ss.s.pool)) / seconds
				}
			}
			bounds = append(bounds, b)
		}
	}
	return bounds
}

func (a *analysis) subjectBounds(ss *scopeSubject, clients float64, clientsDesc string) []bench.Bound {
	measured := ss.values[figThroughput.name]
	think := thinkTime(EffectiveWorkload(ss.s.spec))
	thinkDesc := ""
	if think > 0 {
		thinkDesc = fmt.Sprintf(" + %.3f s think time", think)
	}
	var out []bench.Bound
	if mean := ss.values[figMean.name] / 1000; mean > 0 {
		out = append(out, bench.Bound{Label: ss.s.info.Label, Kind: bench.BoundLittle, Measured: measured,
			Basis:   fmt.Sprintf("%s ÷ (%.3f s mean latency%s)", clientsDesc, mean, thinkDesc),
			Allowed: clients / (mean + think)})
	}
	service, what, ok := serviceTime(ss, EffectiveWorkload(ss.s.spec))
	if !ok {
		return out
	}
	ceilings := []bench.Bound{{Label: ss.s.info.Label, Kind: bench.BoundClients, Measured: measured,
		Basis:   fmt.Sprintf("%s ÷ (%.3f s %s%s)", clientsDesc, service, what, thinkDesc),
		Allowed: clients / (service + think)}}
	if ss.s.pool > 0 {
		ceilings = append(ceilings, bench.Bound{Label: ss.s.info.Label, Kind: bench.BoundPool, Measured: measured,
			Basis:   fmt.Sprintf("%d threads ÷ %.3f s %s", ss.s.pool, service, what),
			Allowed: float64(ss.s.pool) / service})
	}
	lowest := 0
	for i, c := range ceilings {
		if c.Allowed < ceilings[lowest].Allowed {
			lowest = i
		}
	}
	ceilings[lowest].Binds = true
	return append(out, ceilings...)
}

// serviceTime is the mean time the target must spend on a request of the
// workload, in seconds, weighted by how many of each the stage sent: an
// endpoint's duration parameter where it has one (it sleeps that long),
// else the fastest response measured for that request. what says which.
func serviceTime(ss *scopeSubject, w bench.Workload) (seconds float64, what string, ok bool) {
	reqs := w.Requests
	if len(w.Iteration) > 0 {
		reqs = w.IterationRequests()
	}
	window, first := ss.windows[0], ss.plains[0]
	if len(reqs) == 0 {
		return first.Latency.Min / 1000, "service time (fastest response)", first.Latency.Min > 0
	}
	var total, weight float64
	for _, r := range reqs {
		ms, found := r.DurationParam()
		stats, counted := namedStats(window.requests, r.Label())
		if !found {
			ms, found = fastest(stats, counted, len(reqs) == 1, first)
		}
		if !found {
			return 0, "", false
		}
		n := float64(max(r.Weight, 1))
		if counted {
			n = float64(stats.Requests)
		}
		total += n * ms
		weight += n
	}
	if weight == 0 || total == 0 {
		return 0, "", false
	}
	what = "service time"
	if len(reqs) > 1 {
		what = "mean service time"
	}
	return total / weight / 1000, what, true
}

// fastest is the fastest response to a request: its own figures', or the
// window's when the workload has only that request.
func fastest(s bench.Stats, counted, only bool, whole Plain) (float64, bool) {
	switch {
	case counted && s.Successes > 0:
		return RequestPlain(bench.NamedStats{Stats: s}).Latency.Min, true
	case only && whole.Latency.Min > 0:
		return whole.Latency.Min, true
	}
	return 0, false
}

func namedStats(list []bench.NamedStats, name string) (bench.Stats, bool) {
	for _, ns := range list {
		if ns.Name == name {
			return ns.Stats, true
		}
	}
	return bench.Stats{}, false
}

// thinkTime is the mean sleep per request of an iteration, in seconds: a
// client's time between a response and its next request.
func thinkTime(w bench.Workload) float64 {
	requests, sleep := 0, 0.0
	for _, st := range w.Iteration {
		switch {
		case st.Request != nil:
			requests++
		case st.Sleep != nil:
			hi := st.Sleep.Max
			if hi == 0 {
				hi = st.Sleep.Min
			}
			sleep += (st.Sleep.Min.D().Seconds() + hi.D().Seconds()) / 2
		}
	}
	if requests == 0 {
		return 0
	}
	return sleep / float64(requests)
}

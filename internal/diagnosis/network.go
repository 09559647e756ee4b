package diagnosis

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// NetworkShare is the share of a request's time, as the load generator saw
// it, that must pass outside the target's handlers for the network to be
// named; and only where nothing in the target bound the stage (no queue of
// its own could hold the requests) and the generator kept its pace.
const NetworkShare = 0.5

// networkBound names the network between the load generator and the
// target: most of a request's time passed outside the target's handlers
// (the generator's latency less the handlers' own mean time, from the
// target's http_server_requests_seconds), while no thread, pool, lock or
// CPU of the target was at its limit, so no queue in the target held the
// requests. Diagnose asks it only when no cause of the target's was found.
// Where the generator's connections ran short, the time is the one from
// when a request left on its connection (ServiceTime), its wait for one
// left out: a network that holds every request for a retransmission runs
// the connections short, and is their cause. A generator that lagged
// names nothing.
func networkBound(e Evidence) (bench.Cause, bool) {
	if e.Resources == nil || e.Resources.ServerMs <= 0 || hasFlag(e, bench.FlagGeneratorBound) {
		return bench.Cause{}, false
	}
	seen, what := e.Stage.Stats.Latency.Mean, "a request's time as the load generator saw it (mean)"
	if hasFlag(e, bench.FlagConnectionBound) {
		if e.Stage.Stats.ServiceTime == nil {
			return bench.Cause{}, false
		}
		seen, what = e.Stage.Stats.ServiceTime.Mean, "a request's time from when it left on its connection (mean)"
	}
	in := e.Resources.ServerMs
	if seen <= 0 || in >= seen {
		return bench.Cause{}, false
	}
	outside := seen - in
	share := outside / seen
	if share < NetworkShare {
		return bench.Cause{}, false
	}
	c := bench.Cause{Kind: bench.VerdictNetworkBound, Share: share, Evidence: []bench.Figure{
		{Name: what, Value: seen / 1000, Unit: "s"},
		{Name: "in the target's handlers (mean, by its own count)", Value: in / 1000, Unit: "s"},
		{Name: "outside them", Value: share, Unit: "share", Limit: 1},
	}}
	where := "on the network between the load generator and it"
	if !e.Remote {
		where = "between the load generator and it: on this host, its loopback (the kernel's TCP, and the HTTP work either side of the handlers)"
	}
	c.Sentence = fmt.Sprintf("%s: %s of each request's time passed outside its handlers (%s of %s ms on average; %s ms in them, by its own count) "+
		"while its threads, pools and CPU had room: %s",
		e.Target, units.Percent(share), msWords(outside), msWords(seen), msWords(in), where)
	return c, true
}

// hasFlag says whether the stage carries a flag of kind.
func hasFlag(e Evidence, kind string) bool {
	return slices.ContainsFunc(e.Stage.Flags, func(f bench.Flag) bool { return f.Kind == kind })
}

// msWords writes milliseconds to a tenth, and to three figures below one:
// a handler's 0.024 ms is not 0.
func msWords(v float64) string {
	if v < 1 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return units.OneDecimal(v)
}

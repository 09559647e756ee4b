package bench

import (
	"fmt"
	"math"
	"strings"
)

// Generator is what the load generator did to itself during a window: how
// much of its CPU set it used and, in the open model, how late requests
// left compared with their schedule. A generator that cannot keep up is
// measuring itself, not the target.
type Generator struct {
	CPUs         int     `json:"cpus"`         // CPUs in the generator's set
	CPUShare     float64 `json:"cpuShare"`     // mean share of them the generator process used, 0..1
	CPUSharePeak float64 `json:"cpuSharePeak"` // the highest second's share
	// CPUBoundSeconds is how many of the window's seconds the generator
	// used GeneratorCPUBound of its CPUs or more.
	CPUBoundSeconds int     `json:"cpuBoundSeconds,omitempty"`
	Connections     int     `json:"connections"` // connections (clients or workers) it may use at once
	SendLagP99      float64 `json:"sendLagP99"`  // ms, open model: scheduled to actual send, 99th percentile
	SendLagMax      float64 `json:"sendLagMax"`  // ms
	// SchedulingLagP99 is the generator's own part of the send lag, ms,
	// 99th percentile: from a request's scheduled time to when it asked
	// for a connection. ConnectionWaitP99 is the rest: how long requests
	// that found every connection in flight waited for one, the target
	// holding them all. Both are 0 where the engine cannot tell the two
	// apart (vegeta's; runs recorded before), and the flags then read the
	// whole send lag as the generator's.
	SchedulingLagP99  float64 `json:"schedulingLagP99,omitempty"`
	ConnectionWaitP99 float64 `json:"connectionWaitP99,omitempty"`
	Late              int64   `json:"late"`        // open model: requests that waited for a connection (none was free at their time)
	Dropped           int64   `json:"dropped"`     // open model: requests never sent, already later than their timeout
	APIRequests       int64   `json:"apiRequests"` // requests the daemon's API served meanwhile (its CPU is the generator's)
	// StealShare is the share of the machine's CPU time its hypervisor
	// gave to something else while the CPUs were ready to run (steal, from
	// /proc/stat), 0..1, over the window; StealSharePeak its highest
	// second's. Generator and target alike lose that time: a virtual
	// machine's vCPU taken away for milliseconds stalls the send schedule
	// and the target's answers, whoever is measured.
	StealShare     float64 `json:"stealShare,omitempty"`
	StealSharePeak float64 `json:"stealSharePeak,omitempty"`
	// Engine is the load engine that sent the window's requests, empty
	// for threadbench's own (LoadEngineVegeta stamps latency at the
	// actual send).
	Engine string `json:"engine,omitempty"`
}

// Flag kinds: why a window's figures may not be the target's alone.
const (
	FlagGeneratorBound  = "generator-bound"
	FlagConnectionBound = "connection-bound"
	FlagDisturbed       = "disturbed"
)

// Flag marks a window whose figures something other than the target may
// have limited, with the figures that say so.
type Flag struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

// Thresholds of the generator-bound, connection-bound and disturbed flags.
const (
	GeneratorCPUBound = 0.90 // share of its CPU set
	SendLagBoundMs    = 5.0  // p99, ms
	// StealBound is the share of the machine's CPU time its hypervisor may
	// take, in any second of a window, before the window is disturbed.
	// Idle, the machines this was written on show none; a second of 10 %
	// of two vCPUs is 200 ms taken in slices of milliseconds, each a stall
	// past the send lag's bound.
	StealBound        = 0.05
	DisturbingAPIRate = 10.0 // API requests per second during an attack
	// CPUBoundSecondsShare is the share of a window's seconds that may
	// reach GeneratorCPUBound before the window is generator-bound, its
	// mean below it: a mean of 84 % hid seconds at 97 % in a stage whose
	// target then completed 0.59x of wrk's rate.
	CPUBoundSecondsShare = 0.2
)

// OwnLagP99 is the send lag the generator itself caused, ms, 99th
// percentile: its scheduling lag where the engine measured it apart from
// the waits for a connection, else the whole send lag.
func (g Generator) OwnLagP99() float64 {
	if g.split() {
		return g.SchedulingLagP99
	}
	return g.SendLagP99
}

// split reports whether the engine told its own lag from connection waits
// (a measured lag is at least 1 µs).
func (g Generator) split() bool { return g.SchedulingLagP99 > 0 || g.ConnectionWaitP99 > 0 }

// cpuBound says why the generator's CPU bound it over a window of the
// given seconds, or "": its mean share reached GeneratorCPUBound, or
// CPUBoundSecondsShare of the window's whole seconds (at least one) did.
func (g Generator) cpuBound(seconds float64) string {
	limit := fmt.Sprintf("(limit %.0f%%)", GeneratorCPUBound*100)
	if g.CPUShare >= GeneratorCPUBound {
		return fmt.Sprintf("generator CPU %.0f%% of its %d CPU(s) %s", g.CPUShare*100, g.CPUs, limit)
	}
	whole := max(math.Round(seconds), 1)
	if g.CPUBoundSeconds > 0 && float64(g.CPUBoundSeconds) >= CPUBoundSecondsShare*whole {
		return fmt.Sprintf("generator CPU at %.0f%% or more of its %d CPU(s) in %d of %.0f seconds, peak %.0f%% (mean %.0f%%) %s",
			GeneratorCPUBound*100, g.CPUs, g.CPUBoundSeconds, whole, g.CPUSharePeak*100, g.CPUShare*100, limit)
	}
	return ""
}

// Stolen says how much of the machine's CPU time its hypervisor took
// during the window, when it took StealBound or more in any second; ""
// otherwise.
func (g Generator) Stolen() string {
	if g.StealSharePeak < StealBound {
		return ""
	}
	return fmt.Sprintf("the machine's hypervisor took %.0f%% of its CPU time, %.0f%% in its worst second (steal, limit %.0f%%)",
		g.StealShare*100, g.StealSharePeak*100, StealBound*100)
}

// Flags returns the flags a window's generator figures call for over a
// window of the given seconds: generator-bound when the generator used
// GeneratorCPUBound of its CPUs on the mean or in CPUBoundSecondsShare of
// its seconds, sent late by its own doing (p99 above SendLagBoundMs) or
// dropped requests; connection-bound when requests
// waited longer than that for a connection, every one in flight at the
// target (the target then saw no more requests at once than there are
// connections, and answered them too slowly to take more); disturbed
// when the daemon's API served more than DisturbingAPIRate requests a
// second meanwhile.
func (g Generator) Flags(seconds float64) []Flag {
	var why []string
	if cpu := g.cpuBound(seconds); cpu != "" {
		why = append(why, cpu)
	}
	switch {
	case !g.split() && g.SendLagP99 > SendLagBoundMs:
		why = append(why, fmt.Sprintf("send lag p99 %.1f ms (limit %.0f ms)", g.SendLagP99, SendLagBoundMs))
	case g.split() && g.SchedulingLagP99 > SendLagBoundMs:
		why = append(why, fmt.Sprintf("scheduling lag p99 %.1f ms (limit %.0f ms)", g.SchedulingLagP99, SendLagBoundMs))
	}
	if g.Dropped > 0 {
		why = append(why, fmt.Sprintf("%d requests dropped", g.Dropped))
	}
	var flags []Flag
	if len(why) > 0 {
		flags = append(flags, Flag{Kind: FlagGeneratorBound, Reason: strings.Join(why, "; ")})
	}
	if g.ConnectionWaitP99 > SendLagBoundMs {
		flags = append(flags, Flag{Kind: FlagConnectionBound, Reason: fmt.Sprintf("requests waited for a connection, all %d in flight at the target: wait p99 %.1f ms (limit %.0f ms), %d requests", g.Connections, g.ConnectionWaitP99, SendLagBoundMs, g.Late)})
	}
	if stolen := g.Stolen(); stolen != "" {
		flags = append(flags, Flag{Kind: FlagDisturbed, Reason: stolen + ": generator and target stalled alike"})
	}
	if seconds > 0 && float64(g.APIRequests)/seconds > DisturbingAPIRate {
		flags = append(flags, Flag{Kind: FlagDisturbed, Reason: fmt.Sprintf("the daemon's API served %d requests (%.0f/s) during the window", g.APIRequests, float64(g.APIRequests)/seconds)})
	}
	return flags
}

package capacity

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// PausePeriods is how many periods of a target's recurring pauses (a
// JVM's full collections) the pooled time of a rate's confirmations must
// cover. A p99 over a stretch that holds one pause or none is the luck of
// where the pauses fell; over three, a rare pause weighs about as often as
// it happens. A statistical choice, not a figure of any machine.
const PausePeriods = 3

// MinPauseShare is the share of the objective's tightest latency bound a
// pause must last, on average, to count: a request that arrives as such a
// pause begins waits for most of the bound. The target reports its pauses
// as a count and their total time (the JVM's jvm_gc_pause_seconds), so it
// is the mean pause that is judged: a JVM whose many short young
// collections hide a few long full ones is not seen to pause.
const MinPauseShare = 0.5

// pauses is what the trials of a search saw of the target's pauses: when
// each began on the search's clock, and their time together.
type pauses struct {
	at     []time.Duration // the pauses' starts, on the search's clock
	paused float64         // their time, s
	trials []pausedTrial
}

// pausedTrial is how many pauses a trial at a rate saw in its time.
type pausedTrial struct {
	rate, seconds float64
	count         int
}

// add takes the pauses trial t, begun at start (on the search's clock),
// reported.
func (p *pauses) add(start time.Duration, t Trial, out Outcome) {
	for _, at := range out.PauseAt {
		p.at = append(p.at, start+at)
	}
	p.paused += out.PauseSeconds
	p.trials = append(p.trials, pausedTrial{rate: t.Rate, seconds: t.Duration.Seconds(), count: len(out.PauseAt)})
}

// Likelier is how many times likelier the counts of pauses the trials saw
// must be under the model of pauses that come with the requests than
// under the one of pauses that come with the time, for the search to take
// it (withTheRate). A statistical choice, not a figure of any machine.
const Likelier = 2

// withTheRate reports whether the pauses seen came with the requests (a
// number per request: a JVM collecting what its requests allocate) rather
// than with the time (a number per second, whatever the rate): of two
// Poisson models fitted to each trial's count, the first makes the counts
// seen Likelier times likelier than the second does, or more. Both expect
// as many pauses in all; they differ in where: the first puts them in the
// trials of higher rates. With few pauses, or trials of rates too alike
// to tell, neither is taken.
func (p pauses) withTheRate() bool {
	var n, requests, seconds float64
	for _, t := range p.trials {
		n, requests, seconds = n+float64(t.count), requests+t.rate*t.seconds, seconds+t.seconds
	}
	if n < 2 {
		return false
	}
	var perRequest, perSecond float64 // the log-likelihoods but for what both share
	for _, t := range p.trials {
		if t.count > 0 {
			perRequest += float64(t.count) * math.Log(n/requests*t.rate*t.seconds)
			perSecond += float64(t.count) * math.Log(n/seconds*t.seconds)
		}
	}
	return perRequest-perSecond >= math.Log(Likelier)
}

// period is the target's pause period, the median time between
// consecutive pauses seen (a pause missed between two trials makes one
// interval of two periods, which the median passes over), when the pauses
// are long enough to break the objective (MinPauseShare of its tightest
// latency bound on average) and at least three were seen; false otherwise.
func (p pauses) period(o bench.Objective) (time.Duration, bool) {
	n := len(p.at)
	if n < 3 || !p.breaking(o) {
		return 0, false
	}
	at := slices.Sorted(slices.Values(p.at))
	gaps := make([]time.Duration, n-1)
	for i := range gaps {
		gaps[i] = at[i+1] - at[i]
	}
	slices.Sort(gaps)
	median := gaps[len(gaps)/2]
	if len(gaps)%2 == 0 {
		median = (gaps[len(gaps)/2-1] + gaps[len(gaps)/2]) / 2
	}
	return median.Round(100 * time.Millisecond), median > 0
}

// breaking reports whether the pauses seen, one or more, were long
// enough to break the objective (MinPauseShare of its tightest latency
// bound on average).
func (p pauses) breaking(o bench.Objective) bool {
	bound, ok := tightestLatency(o)
	return ok && len(p.at) > 0 && p.paused/float64(len(p.at)) >= MinPauseShare*bound.Seconds()
}

// words says what the pauses were: "7 pauses of 0.24 s on average, one
// every 15s".
func (p pauses) words(period time.Duration) string {
	return fmt.Sprintf("%d pauses of %.2f s on average, one every %s", len(p.at), p.paused/float64(len(p.at)), period)
}

// tightestLatency is the smallest latency bound of an objective.
func tightestLatency(o bench.Objective) (time.Duration, bool) {
	least := math.Inf(1)
	for _, t := range o.Terms {
		if t.Metric.IsLatency() {
			least = min(least, t.Max)
		}
	}
	if math.IsInf(least, 1) {
		return 0, false
	}
	return time.Duration(least * float64(time.Millisecond)), true
}

// coverPauses sizes the rounds to come, under the pooled rule, to the
// target's recurring pauses: each confirmation a whole number of periods
// long (as near its asked length as that allows), so that it holds the
// same number of pauses wherever they fall, and as many of them as make
// PausePeriods periods pooled, as far as the budget left holds one round.
// It says what it did in the result's note (PauseNote), or that the
// budget could not.
func (s *search) coverPauses() {
	period, ok := s.pauses.period(s.cfg.Objective)
	if !ok || !s.pooling() || s.sized == period {
		return
	}
	s.sized = period
	asked := s.asked.confirmDuration()
	each := max(1, int(math.Round(asked.Seconds()/period.Seconds())))
	window := time.Duration(each) * period
	windows := max(s.asked.Confirmations, int(math.Ceil(float64(PausePeriods)/float64(each))))
	c := s.cfg
	c.ConfirmDuration, c.Confirmations = bench.Duration(window), windows
	c.GoalDuration = bench.Duration(time.Duration(windows) * window)
	for c.Confirmations > 1 && s.left() < (cost{cfg: c, short: s.cost.short, confirm: s.cost.confirm}).round(c.Confirmations) {
		c.Confirmations--
		c.GoalDuration = bench.Duration(time.Duration(c.Confirmations) * window)
	}
	s.cfg, s.cost.cfg = c, c
	covered := fmt.Sprintf("%d periods", c.Confirmations*each)
	if c.Confirmations*each < PausePeriods {
		covered = fmt.Sprintf("%d of the %d periods asked: the budget left holds no longer round, and the answer may hold fewer pauses than the target makes", c.Confirmations*each, PausePeriods)
	}
	s.pauseNote = fmt.Sprintf("the target paused (%s): each rate from then on is judged over %d windows of %s (%d period(s) each), %s pooled, %s",
		s.pauses.words(period), c.Confirmations, window, each, c.GoalDuration, covered)
}

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
}

// add takes the pauses a trial that began at start (on the search's
// clock) reported.
func (p *pauses) add(start time.Duration, out Outcome) {
	for _, at := range out.PauseAt {
		p.at = append(p.at, start+at)
	}
	p.paused += out.PauseSeconds
}

// period is the target's pause period, the median time between
// consecutive pauses seen (a pause missed between two trials makes one
// interval of two periods, which the median passes over), when the pauses
// are long enough to break the objective (MinPauseShare of its tightest
// latency bound on average) and at least three were seen; false otherwise.
func (p pauses) period(o bench.Objective) (time.Duration, bool) {
	bound, ok := tightestLatency(o)
	n := len(p.at)
	if !ok || n < 3 || p.paused/float64(n) < MinPauseShare*bound.Seconds() {
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

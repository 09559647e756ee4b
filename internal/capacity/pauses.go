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

// MinPauseShare is the share of the objective's tightest latency bound
// the collections one reading of the target's counters saw (a second's)
// must last together to count as a stop: a request that arrives as such a
// stop begins waits for most of the bound. A JVM's full collection is
// such a reading among its young collections, however short those are on
// average (java-virtual on Serial: 22-75 ms per collection on average,
// with readings of 200-500 ms every few seconds at 2,500 req/s).
const MinPauseShare = 0.5

// Pause is what one reading of a target's collection-pause counters saw:
// Count collections ended since the reading before, Seconds their time
// together, At when it was read, from the trial's start.
type Pause struct {
	At      time.Duration
	Count   int
	Seconds float64
}

// pauses is what the trials of a search saw of the target's pauses, each
// reading at its time on the search's clock.
type pauses struct {
	seen   []Pause
	trials []pausedTrial
}

// pausedTrial is a trial's rate and length, and its readings' times.
type pausedTrial struct {
	rate, seconds float64
	read          []float64
}

// add takes the readings trial t, begun at start (on the search's
// clock), reported.
func (p *pauses) add(start time.Duration, t Trial, out Outcome) {
	pt := pausedTrial{rate: t.Rate, seconds: t.Duration.Seconds()}
	for _, r := range out.Pauses {
		r.At += start
		p.seen = append(p.seen, r)
		pt.read = append(pt.read, r.Seconds)
	}
	p.trials = append(p.trials, pt)
}

// stops are the readings long enough to break objective o: MinPauseShare
// of its tightest latency bound or more.
func (p pauses) stops(o bench.Objective) []Pause {
	least, ok := stopLength(o)
	if !ok {
		return nil
	}
	var long []Pause
	for _, r := range p.seen {
		if r.Seconds >= least {
			long = append(long, r)
		}
	}
	return long
}

// stopLength is how long a reading's pauses must last to be a stop of
// objective o; false for an objective without a latency bound.
func stopLength(o bench.Objective) (float64, bool) {
	bound, ok := tightestLatency(o)
	return MinPauseShare * bound.Seconds(), ok
}

// breaking reports whether a stop was seen.
func (p pauses) breaking(o bench.Objective) bool { return len(p.stops(o)) > 0 }

// Likelier is how many times likelier the counts of stops the trials saw
// must be under the model of stops that come with the requests than
// under the one of stops that come with the time, for the search to take
// it (withTheRate). A statistical choice, not a figure of any machine.
const Likelier = 2

// withTheRate reports whether the stops seen came with the requests (a
// number per request: a JVM collecting what its requests allocate) rather
// than with the time (a number per second, whatever the rate): of two
// Poisson models fitted to each trial's count, the first makes the counts
// seen Likelier times likelier than the second does, or more. Both expect
// as many stops in all; they differ in where: the first puts them in the
// trials of higher rates. With fewer than two stops, or trials of rates
// too alike to tell, neither is taken.
func (p pauses) withTheRate(o bench.Objective) bool {
	least, ok := stopLength(o)
	if !ok {
		return false
	}
	counts := make([]float64, len(p.trials))
	var n, requests, seconds float64
	for i, t := range p.trials {
		for _, secs := range t.read {
			if secs >= least {
				counts[i]++
			}
		}
		n, requests, seconds = n+counts[i], requests+t.rate*t.seconds, seconds+t.seconds
	}
	if n < 2 {
		return false
	}
	var perRequest, perSecond float64 // the log-likelihoods but for what both share
	for i, t := range p.trials {
		if counts[i] > 0 {
			perRequest += counts[i] * math.Log(n/requests*t.rate*t.seconds)
			perSecond += counts[i] * math.Log(n/seconds*t.seconds)
		}
	}
	return perRequest-perSecond >= math.Log(Likelier)
}

// period is the target's period of stops, the median time between
// consecutive ones (a stop missed between two trials makes one interval
// of two periods, which the median passes over), when at least three were
// seen; false otherwise.
func (p pauses) period(o bench.Objective) (time.Duration, bool) {
	stops := p.stops(o)
	n := len(stops)
	if n < 3 {
		return 0, false
	}
	at := make([]time.Duration, n)
	for i, r := range stops {
		at[i] = r.At
	}
	slices.Sort(at)
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

// requestsPerStop is how many requests the trials sent per stop they saw
// (the rate of a Poisson model of stops per request, fitted to every
// trial's count): where the stops come with the requests (withTheRate),
// the target's period at a rate is that many requests' time there; 0 with
// no stop.
func (p pauses) requestsPerStop(o bench.Objective) float64 {
	n := len(p.stops(o))
	if n == 0 {
		return 0
	}
	var requests float64
	for _, t := range p.trials {
		requests += t.rate * t.seconds
	}
	return requests / float64(n)
}

// periodAt is the target's period of stops at rate: where they come with
// the requests (withTheRate), the time rate takes to send the requests
// the trials sent per stop, since a JVM collecting what its requests
// allocate stops less often the lower the rate (java-virtual every 7 s at
// 1,971-3,200 req/s, every 27 s at 1,500), and a round at 970 req/s sized
// to the 7 s of the higher rates held no stop in its 35 s; else the
// median time between stops (period). perRequest says which.
func (p pauses) periodAt(o bench.Objective, rate float64) (period time.Duration, perRequest, ok bool) {
	period, ok = p.period(o)
	if !ok || rate <= 0 || !p.withTheRate(o) {
		return period, false, ok
	}
	secs := p.requestsPerStop(o) / rate
	return time.Duration(secs * float64(time.Second)).Round(100 * time.Millisecond), true, secs > 0
}

// words says what the stops were: "7 stops of 0.24 s on average, one
// every 15s", or, where they come with the requests, "..., one every
// 40000 requests: every 25s at 1600 req/s".
func (p pauses) words(o bench.Objective, period time.Duration, perRequest bool, rate float64) string {
	stops := p.stops(o)
	if perRequest {
		return fmt.Sprintf("%d stops of %.2f s on average, one every %.0f requests: every %s at %.0f req/s",
			len(stops), meanSeconds(stops), p.requestsPerStop(o), period, rate)
	}
	return fmt.Sprintf("%d stops of %.2f s on average, one every %s", len(stops), meanSeconds(stops), period)
}

// meanSeconds is how long the readings lasted on average.
func meanSeconds(readings []Pause) float64 {
	var secs float64
	for _, r := range readings {
		secs += r.Seconds
	}
	return secs / float64(len(readings))
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

// coverPauses sizes the round at rate, under the pooled rule, to the
// target's recurring pauses there (periodAt): each confirmation a whole
// number of periods long (as near its asked length as that allows), so
// that it holds the same number of pauses wherever they fall, and as many
// of them as make PausePeriods periods pooled, as far as the budget left
// holds one round and never over less than the goal asked. It says what
// it did in the result's note (PauseNote), or that the budget could not.
func (s *search) coverPauses(rate float64) {
	period, perRequest, ok := s.pauses.periodAt(s.cfg.Objective, rate)
	if !ok || !s.pooling() || s.sized == period {
		return
	}
	s.sized = period
	asked := s.asked.confirmDuration()
	each := max(1, int(math.Round(asked.Seconds()/period.Seconds())))
	window := time.Duration(each) * period
	// Never pooled over less than the goal asked: fewer windows than make
	// it would judge the objective over less time than the user set.
	least := max(1, int(math.Ceil(s.asked.goal().Seconds()/window.Seconds()-1e-9)))
	windows := max(s.asked.Confirmations, int(math.Ceil(float64(PausePeriods)/float64(each))), least)
	c := s.cfg
	c.ConfirmDuration, c.Confirmations = bench.Duration(window), windows
	c.GoalDuration = bench.Duration(time.Duration(windows) * window)
	for c.Confirmations > least && s.left() < (cost{cfg: c, short: s.cost.short, confirm: s.cost.confirm}).round(c.Confirmations) {
		c.Confirmations--
		c.GoalDuration = bench.Duration(time.Duration(c.Confirmations) * window)
	}
	s.cfg, s.cost.cfg = c, c
	covered := fmt.Sprintf("%d periods", c.Confirmations*each)
	if c.Confirmations*each < PausePeriods {
		covered = fmt.Sprintf("%d of the %d periods asked: the budget left holds no longer round, and the answer may hold fewer pauses than the target makes", c.Confirmations*each, PausePeriods)
	}
	judged := "each rate from then on is"
	if perRequest {
		judged = fmt.Sprintf("the round at %.0f req/s was", rate)
	}
	s.pauseNote = fmt.Sprintf("the target paused (%s): %s judged over %d windows of %s (%d period(s) each), %s pooled, %s",
		s.pauses.words(s.cfg.Objective, period, perRequest, rate), judged, c.Confirmations, window, each, c.GoalDuration, covered)
	if s.pauseNotes == nil {
		s.pauseNotes = map[float64]string{}
	}
	s.pauseNotes[rate] = s.pauseNote
}

// noteAt is what the rounds did about the target's pauses, as said when
// the round at rate was sized (the answer's), else when the last was.
func (s *search) noteAt(rate float64) string {
	if note, ok := s.pauseNotes[rate]; ok {
		return note
	}
	return s.pauseNote
}

// unsizedNote says, under the pooled rule, that the target stopped but too
// few times in the search for their period to size its rounds to: its
// answer was judged over rounds that may hold more or fewer stops than the
// target makes at length (java-virtual, whose full collections come every
// 15-27 s at 1,200-1,600 req/s, showed one or two to a search of 100 s).
// Empty where the rounds were sized, or no stop was seen.
func (s *search) unsizedNote() string {
	stops := s.pauses.stops(s.cfg.Objective)
	if s.pauseNote != "" || len(stops) == 0 || !s.pooling() {
		return ""
	}
	return fmt.Sprintf("the target stopped %d time(s) (%.2f s on average) in the search's trials, too few to take their period: its rounds were not sized to them, and the answer's windows may hold more or fewer stops than the target makes at length",
		len(stops), meanSeconds(stops))
}

// stopsAt counts the stops the trials at rate saw, and the lowest and
// highest rates of the trials that saw any.
func (p pauses) stopsAt(o bench.Objective, rate float64) (n int, lo, hi float64) {
	least, ok := stopLength(o)
	if !ok {
		return 0, 0, 0
	}
	for _, t := range p.trials {
		for _, secs := range t.read {
			if secs < least {
				continue
			}
			if t.rate == rate {
				n++
			}
			if lo == 0 || t.rate < lo {
				lo = t.rate
			}
			hi = max(hi, t.rate)
		}
	}
	return n, lo, hi
}

// answerStopsNote says, where the rounds were sized to the target's stops
// (coverPauses), that the answer's own rounds saw none: the period came
// from the stops of other rates, and the answer's pooled time held fewer
// than the periods asked. A JVM's full collections come with what its
// requests allocate: java-virtual stopped every 7 s at 1,971-3,200 req/s,
// and its rounds at 493-970 req/s held none in 35 s each; over 150 s at
// 1,600 it had one stop and a p99 of 432 ms where its 30 s windows read
// 244-261 ms but one. "" otherwise.
func (s *search) answerStopsNote(res *Result) string {
	if s.noteAt(res.Rate) == "" || res.Rate <= 0 || len(res.Confirmations) == 0 {
		return ""
	}
	n, lo, hi := s.pauses.stopsAt(s.cfg.Objective, res.Rate)
	if n > 0 || hi == 0 {
		return ""
	}
	where := fmt.Sprintf("%.0f req/s", lo)
	if hi > lo {
		where = fmt.Sprintf("%.0f-%.0f req/s", lo, hi)
	}
	return fmt.Sprintf("; at the answer, %.0f req/s, its rounds held no stop: the period is that of the stops at %s, and the target's stops at the answer's rate, if any, come less often than its %s pooled could show: it may have been judged over fewer of them than the target makes there at length",
		res.Rate, where, s.cfg.goal())
}

package vegeta

import (
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/threadbench/threadbench/internal/load"
)

// schedulePacer is load's open schedule as a vegeta Pacer: hit k leaves at
// the time the schedule gives it, through holds and linear ramps alike
// (vegeta's ConstantPacer and LinearPacer pace one shape each, and round
// differently from the recorder's per-second counts). It waits on the
// session's clock rather than on vegeta's elapsed time, which starts a few
// microseconds later.
type schedulePacer struct{ s *load.Session }

var _ vegeta.Pacer = schedulePacer{}

// Pace returns the wait until hit number hits is due, and stops after the
// schedule's last hit.
func (p schedulePacer) Pace(_ time.Duration, hits uint64) (time.Duration, bool) {
	due, ok := p.s.Due(hits)
	if !ok {
		return 0, true
	}
	return max(due-p.s.Since(), 0), false
}

// Rate returns the scheduled rate at elapsed.
func (p schedulePacer) Rate(elapsed time.Duration) float64 { return p.s.Rate(elapsed) }

// holdPacer sends as fast as the attack's fixed workers come free, until
// the end of closed stage number stage (of the session's ClosedStages) on
// the session's clock, read at every request: a warm-up until steady ends
// when it settles.
type holdPacer struct {
	s     *load.Session
	stage int
}

var _ vegeta.Pacer = holdPacer{}

// Pace never waits; it stops at the stage's end.
func (p holdPacer) Pace(time.Duration, uint64) (time.Duration, bool) {
	return 0, p.s.Since() >= p.s.ClosedEnd(p.stage)
}

// Rate is 0: a closed stage has no arrival rate.
func (holdPacer) Rate(time.Duration) float64 { return 0 }

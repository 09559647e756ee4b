package builtin

import (
	"math"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// FanoutModel is seed 001's arithmetic: Calls calls made at once (or
// Limit at a time, in the pool and semaphore modes) to a callee that
// serves Workers at once, each for Service, each given Timeout to answer.
type FanoutModel struct {
	Calls   int
	Limit   int    // the pool's threads or the semaphore's permits; ignored when unbounded
	Mode    string // ModePool, ModeSemaphore, or an unbounded mode
	Workers int
	Service time.Duration
	Timeout time.Duration
}

// Unbounded reports whether mode applies no limit (unbounded, virtual,
// goroutines).
func Unbounded(mode string) bool { return mode != bench.ModePool && mode != bench.ModeSemaphore }

// Expect returns the share of calls that succeed and how long the fan-out
// takes. The callee serves its workers in waves of Service; a call that
// waits k waves at the callee answers after (k+1) Service, in time when
// that is within Timeout. So with C calls in flight and W workers, at
// most floor(Timeout / Service) waves of W succeed per round of C: for an
// unbounded fan-out with Timeout under two service times, W / Calls (seed
// 001: 200 / 1,000 = 20 %). When every call succeeds the fan-out takes
// ceil(Calls / C) waves; when some time out, each round lasts the timeout.
func (m FanoutModel) Expect() (success float64, took time.Duration) {
	if m.Calls <= 0 || m.Workers <= 0 || m.Service <= 0 {
		return 0, 0
	}
	inFlight := m.Calls
	if !Unbounded(m.Mode) && m.Limit > 0 {
		inFlight = min(m.Limit, m.Calls)
	}
	rounds := ceilDiv(m.Calls, inFlight)
	waves := int(m.Timeout / m.Service) // waves a call may wait through and still answer in time
	perRound := min(inFlight, waves*m.Workers)
	if perRound >= inFlight {
		return 1, time.Duration(rounds*ceilDiv(inFlight, m.Workers)) * m.Service
	}
	// The last round may be smaller than the others.
	last := m.Calls - (rounds-1)*inFlight
	succeeded := (rounds-1)*perRound + min(last, waves*m.Workers)
	return float64(succeeded) / float64(m.Calls), time.Duration(rounds) * max(m.Timeout, time.Duration(waves)*m.Service)
}

func ceilDiv(a, b int) int { return int(math.Ceil(float64(a) / float64(b))) }

package load

import (
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// The shares of a plan split among generators interleave into the plan's
// own schedule: generator k mod n sends the plan's request k, at its time,
// every request once, through warm-up, holds and ramps.
func TestSharesInterleaveIntoTheSchedule(t *testing.T) {
	plan := bench.Plan{
		Profile: bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{hold(1, 90), ramp(2, 300), hold(1.5, 7), ramp(1, 0)}},
		Warmup:  bench.Warmup{Duration: sec(0.5), Rate: 40},
	}
	whole := newTimetable(plan).load()
	for _, n := range []int{2, 3, 7} {
		shares := make([]*schedule, n)
		for i := range shares {
			shares[i] = newTimetable(plan.ShareOf(bench.Share{Index: i, Of: n})).load()
		}
		sent := make([]uint64, n)
		for k := uint64(0); ; k++ {
			want, ok := whole.due(k)
			if !ok || want >= whole.openEnd {
				for i, sc := range shares {
					if due, ok := sc.due(sent[i]); ok && due < sc.openEnd {
						t.Errorf("%d shares: share %d has a request %d at %s beyond the plan's %d", n, i, sent[i], due, k)
					}
				}
				break
			}
			i := k % uint64(n)
			got, ok := shares[i].due(sent[i])
			if d := got - want; !ok || d > time.Microsecond || d < -time.Microsecond {
				t.Fatalf("%d shares: plan's request %d due at %s, share %d's request %d at %s (ok %t)", n, k, want, i, sent[i], got, ok)
			}
			sent[i]++
		}
	}
}

// Each second's expected requests, share by share, add up to the plan's.
func TestSharesExpectTheSecondsRequests(t *testing.T) {
	plan := bench.Plan{Profile: bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{ramp(3, 250), hold(2, 101)}}}
	whole := newTimetable(plan).load()
	const n = 3
	for b := time.Duration(0); b < whole.end; b += time.Second {
		want := whole.firstDue(b+time.Second) - whole.firstDue(b)
		var got uint64
		for i := range n {
			sc := newTimetable(plan.ShareOf(bench.Share{Index: i, Of: n})).load()
			got += sc.firstDue(b+time.Second) - sc.firstDue(b)
		}
		if got != want {
			t.Errorf("second at %s: the shares expect %d requests, the plan %d", b, got, want)
		}
	}
}

// A share's mix is the plan's mix dealt out: its n-th request is the
// plan's Share.Global(n)-th.
func TestSharePicksThePlansRequests(t *testing.T) {
	w := bench.Workload{Requests: []bench.Request{{Endpoint: "light", Weight: 3}, {Endpoint: "heavy", Weight: 2}}}
	whole := newRequestSet("http://x", w)
	const n = 2
	for i := range n {
		s := newRequestSet("http://x", w)
		s.share = bench.Share{Index: i, Of: n}
		for j := range uint64(20) {
			if got, want := s.pick(j), whole.pick(j*n+uint64(i)); got != want {
				t.Errorf("share %d request %d: kind %d, want the plan's request %d's kind %d", i, j, got, j*n+uint64(i), want)
			}
		}
	}
}

package capacity_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
	"github.com/threadbench/threadbench/internal/hdr"
)

// slowShare is a simulated target in virtual time whose short trials pass
// up to shortEdge req/s, and whose confirmations at a rate above
// longEdge answer slow (500 ms against 200) the share of their requests
// slow returns.
type slowShare struct {
	shortEdge, longEdge float64
	slow                func(rate float64) float64
	now                 time.Duration
}

func (p *slowShare) run(_ context.Context, t capacity.Trial) (capacity.Outcome, error) {
	n := int64(t.Rate * t.Duration.Seconds())
	share := 0.0
	switch {
	case t.Phase != capacity.PhaseConfirm && t.Rate > p.shortEdge:
		share = 0.5
	case t.Phase == capacity.PhaseConfirm && t.Rate > p.longEdge:
		share = p.slow(t.Rate)
	}
	h := hdr.New()
	slow := int64(share * float64(n))
	for i := range n {
		d := 200 * time.Millisecond
		if i < slow {
			d = 500 * time.Millisecond
		}
		hdr.Record(h, d)
	}
	st, err := trialStats(h, n, n, t.Duration)
	if err != nil {
		return capacity.Outcome{}, err
	}
	p.now += t.Duration + time.Second
	return capacity.Outcome{Stats: st}, nil
}

func (p *slowShare) search(t *testing.T, budget time.Duration) *capacity.Result {
	t.Helper()
	o, err := bench.ParseObjective("p99<=300ms")
	if err != nil {
		t.Fatal(err)
	}
	cfg := capacity.Config{Objective: o, CapacitySpec: bench.CapacitySpec{Budget: bench.Duration(budget), StartRate: 500},
		Now: func() time.Time { return time.Time{}.Add(p.now) },
		Wait: func(_ context.Context, d time.Duration) error {
			p.now += d
			return nil
		}}
	res, err := capacity.Search(context.Background(), cfg, p.run)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// roundsOf groups a result's confirmations by rate, in order: the
// windows each round ran.
func roundsOf(r *capacity.Result) (rates []float64, windows []int) {
	for _, st := range r.Steps {
		if st.Phase != capacity.PhaseConfirm {
			continue
		}
		if len(rates) == 0 || rates[len(rates)-1] != st.Rate {
			rates, windows = append(rates, st.Rate), append(windows, 0)
		}
		windows[len(windows)-1]++
	}
	return rates, windows
}

// A pooled round is over once it cannot pass: above the long edge every
// window answers 5 % of its requests slow, so that its first window alone
// breaks p99<=300ms over the three windows' requests (5 % of one window is
// more than 1 % of three), and the round stops after it; a round that
// holds runs its three. The rounds saved go to the search below: the
// answer is the long edge's side, confirmed.
func TestSearchLostRoundStops(t *testing.T) {
	p := &slowShare{shortEdge: 1000, longEdge: 900, slow: func(float64) float64 { return 0.05 }}
	res := p.search(t, 5*time.Minute)
	rates, windows := roundsOf(res)
	t.Logf("%.0f req/s (%s); rounds %v, windows %v", res.Rate, res.Reason, rates, windows)
	if res.Rate == 0 || res.Rate > 900 || res.Unconfirmed != "" || res.Pooled == nil || res.Pooled.Windows != 3 {
		t.Errorf("answer %.0f req/s, pooled %+v, unconfirmed %q: want a rate at most 900 confirmed over three windows", res.Rate, res.Pooled, res.Unconfirmed)
	}
	if f := res.Failed; f == nil || f.Phase != capacity.PhaseConfirm || !strings.Contains(strings.Join(f.Violations, "; "), "lost before its 3 windows") {
		t.Errorf("the failure above: %+v, want a round that says it was lost before its 3 windows", f)
	} else {
		t.Logf("failed at %.0f req/s: %s", f.Rate, strings.Join(f.Violations, "; "))
	}
	for i, r := range rates {
		switch {
		case r > 900 && windows[i] != 1:
			t.Errorf("round at %.0f req/s ran %d windows, want 1: its first lost it", r, windows[i])
		case r <= 900 && windows[i] != 3:
			t.Errorf("round at %.0f req/s ran %d windows, want its 3", r, windows[i])
		}
	}
}

// Lost is exact: at 2 % slow a window, one window (2 % of its requests,
// under 1 % of the three windows') leaves the round open, two (4 % of
// one window's) close it.
func TestSearchLostRoundExact(t *testing.T) {
	p := &slowShare{shortEdge: 1000, longEdge: 900, slow: func(float64) float64 { return 0.02 }}
	res := p.search(t, 5*time.Minute)
	rates, windows := roundsOf(res)
	t.Logf("%.0f req/s; rounds %v, windows %v", res.Rate, rates, windows)
	for i, r := range rates {
		if want := map[bool]int{true: 2, false: 3}[r > 900]; windows[i] != want {
			t.Errorf("round at %.0f req/s ran %d windows, want %d", r, windows[i], want)
		}
	}
}

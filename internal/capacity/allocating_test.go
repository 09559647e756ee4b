package capacity_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
	"github.com/threadbench/threadbench/internal/hdr"
)

// allocating is a simulated target in virtual time that stops for pause
// after every `every` requests it starts: a JVM whose full collections
// come with what its requests allocate, so that they come more often the
// higher the rate (java-virtual on JDK 25's Serial collector: 0.19-0.27 s
// every 27 s at 1,500 req/s, every 13 s at 3,000). A short trial rarely
// holds a pause and passes far above the rate whose p99 holds over
// minutes. phase is how many requests it started before the first trial
// (the seed of where the pauses fall).
type allocating struct {
	capacity float64 // req/s, unpaused
	service  time.Duration
	every    float64 // requests between two pauses
	pause    time.Duration
	phase    float64
	overhead time.Duration

	now     time.Duration // the virtual clock
	started float64       // requests started so far
	until   float64       // the end of the last pause, s
	free    float64       // when the target can start the next request, s
}

func (a *allocating) run(_ context.Context, t capacity.Trial) (capacity.Outcome, error) {
	h := hdr.New()
	from := a.now.Seconds()
	end := from + t.Duration.Seconds()
	n := int64(t.Rate * t.Duration.Seconds())
	var completed int64
	var at []time.Duration
	for i := range n {
		arrived := from + (float64(i)+0.5)/t.Rate
		begin := max(arrived, a.free, a.until)
		a.free = begin + 1/a.capacity
		hdr.Record(h, time.Duration((begin-arrived)*float64(time.Second))+a.service)
		if begin+a.service.Seconds() <= end {
			completed++
		}
		a.started++
		if int64(a.started+a.phase)%int64(a.every) == 0 {
			a.until = a.free + a.pause.Seconds()
			at = append(at, time.Duration((a.free-from)*float64(time.Second)))
		}
	}
	st, err := trialStats(h, n, completed, t.Duration)
	if err != nil {
		return capacity.Outcome{}, err
	}
	a.now += t.Duration + a.overhead
	return capacity.Outcome{Stats: st, Pauses: readings(at, a.pause)}, nil
}

// edge is the rate at which the p99 over a long stretch (forty pauses)
// meets bound: what the search should answer.
func (a allocating) edge(bound float64) float64 {
	lo, hi := 1.0, a.capacity
	for hi-lo > 1e-3*hi {
		mid := (lo + hi) / 2
		fresh := allocating{capacity: a.capacity, service: a.service, every: a.every, pause: a.pause}
		d := time.Duration(40 * a.every / mid * float64(time.Second))
		out, _ := fresh.run(context.Background(), capacity.Trial{Rate: mid, Duration: d})
		if out.Stats.Latency.P99 <= bound {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// The real search's case: a three-target run's third of a 5-minute budget
// for java-virtual, starting at 50 req/s, its pauses coming with its
// requests. Short trials pass up to twice the rate that holds at length;
// the round there fails, and where the pauses seen were likelier to come
// with the requests than with the time, the search aims below it by how
// far the round broke the objective (the share of requests over the bound
// in proportion to the rate). Wherever the pauses fall, no answer is 0,
// the confirmed ones agree within the precision, under the rate whose
// p99 holds over forty pauses, and no more than a quarter are unconfirmed
// (a search that saw one pause only cannot tell what brings them). Before,
// the rounds stepped down 2 % and then went to half the lowest failure,
// and the budget ended there: 800 to 1,600 req/s, five of eight
// unconfirmed. Given the whole 5 minutes, the rounds go on and land nearer
// the edge, as far apart as where two or three pauses fell in a round
// (logged, not held to the precision), each round sized to the stops at
// its own rate, and none over the edge.
func TestSearchPausesComingWithTheRate(t *testing.T) {
	proto := allocating{capacity: 5000, service: 200 * time.Millisecond, every: 40000, pause: 250 * time.Millisecond, overhead: time.Second}
	edge := proto.edge(300)
	for _, budget := range []time.Duration{100 * time.Second, 300 * time.Second} {
		results := searchAllocating(t, proto, budget)
		lo, hi := spread(results)
		t.Logf("budget %s: edge over forty pauses %.0f req/s; answers %.0f..%.0f req/s%s", budget, edge, lo, hi, describe(results))
		var confirmed []*capacity.Result
		for i, r := range results {
			if r.Rate == 0 {
				t.Errorf("budget %s, seed %d: 0 req/s: %s", budget, i, r.Reason)
			}
			if r.Unconfirmed == "" {
				confirmed = append(confirmed, r)
			}
			if r.PauseNote == "" && slices.ContainsFunc(r.Steps, func(st capacity.Step) bool { return st.Phase == capacity.PhaseConfirm }) {
				t.Errorf("budget %s, seed %d: no note of the target's stops, which it makes every 40,000 requests", budget, i)
			}
			if p := r.Pooled; r.Unconfirmed == "" && (p == nil || p.Duration.D() < capacity.DefaultGoalDuration) {
				t.Errorf("budget %s, seed %d: confirmed over %+v, want the %s goal pooled", budget, i, p, capacity.DefaultGoalDuration)
			}
		}
		if budget != 100*time.Second {
			// Given the rounds' time, each is sized to the stops at its own
			// rate (every 40,000 requests: 25 s at 1,600 req/s), not to
			// the seconds between the stops of the rates before it: no
			// confirmed answer above the edge (before, the rounds took the
			// period of the higher rates' stops, 30 s held one stop or two
			// at 1,600-1,900, and three answers of eight were over the
			// edge, up to 1,901 req/s).
			for i, r := range confirmed {
				var every, at float64
				_, err := fmt.Sscanf(r.PauseNote[strings.Index(r.PauseNote, "one every ")+len("one every "):], "%f requests", &every)
				fmt.Sscanf(r.PauseNote[strings.Index(r.PauseNote, "the round at ")+len("the round at "):], "%f req/s", &at)
				if r.Rate > edge || err != nil || math.Abs(every-proto.every) > 0.15*proto.every || math.Abs(at-r.Rate) > 0.5 {
					t.Errorf("budget %s, answer %d: %.0f req/s (edge %.0f); note %q, want under the edge, its round sized to stops every 40000 requests (within 15 %%)", budget, i, r.Rate, edge, r.PauseNote)
				}
			}
			continue
		}
		if lo, hi := spread(confirmed); len(confirmed) < len(results)*3/4 || (hi-lo)/hi > capacity.DefaultPrecision || hi > edge {
			t.Errorf("budget %s: %d of %d answers confirmed, %.0f..%.0f req/s; want three quarters or more, within the precision %.0f %% of each other, under the edge %.0f",
				budget, len(confirmed), len(results), lo, hi, 100*capacity.DefaultPrecision, edge)
		}
	}
}

func searchAllocating(t *testing.T, proto allocating, budget time.Duration) []*capacity.Result {
	var results []*capacity.Result
	const seeds = 8
	for seed := range seeds {
		a := proto
		a.phase = proto.every * float64(seed) / seeds
		cfg := capacity.Config{CapacitySpec: bench.CapacitySpec{Budget: bench.Duration(budget)},
			Now: func() time.Time { return time.Time{}.Add(a.now) },
			Wait: func(_ context.Context, d time.Duration) error {
				a.now += d
				return nil
			}}
		var err error
		if cfg.Objective, err = bench.ParseObjective("p99<=300ms"); err != nil {
			t.Fatal(err)
		}
		cfg.StartRate = 50
		res, err := capacity.Search(context.Background(), cfg, a.run)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	return results
}

// trialStats is what a simulated trial of d reports: n requests sent and
// answered, completed of them within its window, their latencies h.
func trialStats(h *hdrhistogram.Histogram, n, completed int64, d time.Duration) (bench.Stats, error) {
	enc, err := hdr.Encode(h)
	if err != nil {
		return bench.Stats{}, err
	}
	st := bench.Stats{Requests: n, Successes: n, Completed: completed, Elapsed: bench.Duration(d), Latency: hdr.Summarize(h), Histogram: enc}
	st.SetRates()
	return st, nil
}

// readings are a simulated target's pauses as its counters show them,
// one reading each.
func readings(at []time.Duration, pause time.Duration) []capacity.Pause {
	var out []capacity.Pause
	for _, t := range at {
		out = append(out, capacity.Pause{At: t, Count: 1, Seconds: pause.Seconds()})
	}
	return out
}

// Rounds sized to a target's stops never judge it over less than the goal
// asked (30 s): stops every 7-10 s made rounds of three one-period windows
// (20.1 s pooled), and a budget that held one window only made rounds of
// one (7.7-12.6 s): 14 of 24 searches answered so.
func TestSearchStopsNeverShortenTheGoal(t *testing.T) {
	proto := allocating{capacity: 5000, service: 200 * time.Millisecond, every: 10000, pause: 350 * time.Millisecond, overhead: time.Second}
	for _, budget := range []time.Duration{100 * time.Second, 150 * time.Second, 200 * time.Second} {
		for i, r := range searchAllocating(t, proto, budget) {
			if p := r.Pooled; p != nil && p.Duration.D() < capacity.DefaultGoalDuration {
				t.Errorf("budget %s, seed %d: %.0f req/s judged over %s (%s), want the %s goal at least", budget, i, r.Rate, p.Duration, r.PauseNote, capacity.DefaultGoalDuration)
			}
		}
	}
}

// A search whose only pass is a short trial at a rate that then fails at
// length, with the budget left holding no round below it but short
// trials: it runs them down from the rate below until one passes, and
// answers that rate, unconfirmed, not 0 (java-platform at its pool's
// bound, 1,000 req/s, on a machine whose hypervisor took 7-16 % of the
// CPUs, answered 0).
func TestSearchBudgetAfterFailedRoundEndsOnAShortPass(t *testing.T) {
	p := pausing{capacity: 5000, service: 200 * time.Millisecond, period: time.Hour, overhead: time.Second}
	run := func(ctx context.Context, tr capacity.Trial) (capacity.Outcome, error) {
		p.service = 200 * time.Millisecond
		if tr.Phase == capacity.PhaseConfirm && tr.Rate >= 1000 {
			p.service = 400 * time.Millisecond // at length the rate is past what it carries
		}
		return p.run(ctx, tr)
	}
	for _, budget := range []time.Duration{45 * time.Second, 55 * time.Second, 65 * time.Second} {
		cfg := p.config(t, "p99<=300ms")
		cfg.StartRate, cfg.MaxRate, cfg.Budget = 1000, 1000, bench.Duration(budget)
		res, err := capacity.Search(context.Background(), cfg, run)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("budget %s: %s; %s", budget, describe([]*capacity.Result{res}), steps(res))
		if res.Rate == 0 || res.Rate >= 1000 {
			t.Errorf("budget %s: %.0f req/s (%s), want a short pass under the failed 1,000", budget, res.Rate, res.Reason)
		}
	}
}

// A load generator that lagged once at a rate whose trial, asked again,
// passed does not cap an unconfirmed answer below that rate: go's search
// on a stolen machine answered 1,600 req/s, its lagged 3,200 passing when
// asked again and 6,400 too, the round there failing with no budget left
// for another (here 3,200, where it answered 1,600 before).
func TestSearchGeneratorLagAskedAgainDoesNotCap(t *testing.T) {
	p := pausing{capacity: 50000, service: 200 * time.Millisecond, period: time.Hour, overhead: time.Second}
	lagged, confirmed := false, 0
	run := func(ctx context.Context, tr capacity.Trial) (capacity.Outcome, error) {
		lags := tr.Rate == 3200 && !lagged
		p.service = 200 * time.Millisecond
		if tr.Phase == capacity.PhaseConfirm {
			confirmed++
		}
		switch {
		case lags:
			p.service = 310 * time.Millisecond // over the bound by less than the generator's lag
		case tr.Rate >= 12800, confirmed == 3: // the round at 6,400 lost in its last window
			p.service = 2 * time.Second
		}
		out, err := p.run(ctx, tr)
		if lags {
			lagged, out.GeneratorBound, out.SendLag = true, "scheduling lag p99 15.4 ms", 15.4
		}
		return out, err
	}
	cfg := p.config(t, "p99<=300ms")
	cfg.StartRate, cfg.MaxRate, cfg.Budget = 1600, 20000, bench.Duration(75*time.Second)
	res, err := capacity.Search(context.Background(), cfg, run)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s; %s", describe([]*capacity.Result{res}), steps(res))
	if !lagged || res.Rate < 3200 || res.Rate >= 6400 {
		t.Errorf("%.0f req/s (%s), want the 3,200 that passed when asked again, at least", res.Rate, res.Reason)
	}
}

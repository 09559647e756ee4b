package capacity_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
)

// The 16-trial search: the Go target's CPU-bound endpoint on its
// one CPU (about 330 req/s; a backlog builds the longer a trial runs, so
// short trials pass rates confirmations fail), p99<=200ms, a 60 s budget
// of 2 s trials, two 4 s confirmations and 500 ms pauses, from 160 req/s
// after a 2 s warm-up. Its trials took about 1 s each beyond their nominal
// length (16 in 57.3 s): half as long again as a 2 s trial. However much
// each trial costs, the search keeps back what confirming costs as it
// measured it, and ends with a rate confirmed in full within the budget.
func TestSearchConfirmsWithinBudget(t *testing.T) {
	for _, tt := range []struct {
		name     string
		overhead time.Duration
	}{{"trials of their nominal length", 0}, {"1 s a trial, 50% of a short one", time.Second}, {"2 s a trial", 2 * time.Second}} {
		t.Run(tt.name, func(t *testing.T) {
			srv := &server{capacity: 330, service: 3 * time.Millisecond, overhead: tt.overhead, warmup: 2 * time.Second}
			cfg := srv.config("p99<=200ms", t)
			cfg.Budget, cfg.TrialDuration, cfg.ConfirmDuration = bench.Duration(time.Minute), bench.Duration(2*time.Second), bench.Duration(4*time.Second)
			cfg.Confirmations, cfg.Settle, cfg.StartRate = 2, bench.Duration(500*time.Millisecond), 160
			res, err := capacity.Search(context.Background(), cfg, srv.run)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%.1f req/s, %s: %s; %d trials, %s charged of %s", res.Rate, res.Stop, res.Reason, len(res.Steps), res.Spent, srv.now.Sub(time.Time{}))
			if res.Spent > cfg.Budget.D() || res.Spent != srv.now.Sub(time.Time{})-srv.warmup {
				t.Errorf("spent %s of %s, want the virtual time less the warm-up (%s)", res.Spent, cfg.Budget, srv.now.Sub(time.Time{})-srv.warmup)
			}
			if edge := srv.edge(200, cfg.ConfirmDuration.D()); res.Rate > edge || res.Rate < 0.7*edge {
				t.Errorf("rate %.1f, want a confirmed rate up to %.1f", res.Rate, edge)
			}
			if len(res.Confirmations) != 2 {
				t.Fatalf("%d confirmations, want 2", len(res.Confirmations))
			}
			for _, c := range res.Confirmations {
				if !c.Pass || c.Rate != res.Rate || c.Duration != cfg.ConfirmDuration.D() {
					t.Errorf("confirmation %+v: want a full-length pass at %.2f", c, res.Rate)
				}
			}
		})
	}
}

// Short trials that pass 10 % more than the target carries at length put
// the first confirmation above its capacity: it fails, and the search goes
// on at full length under what the target served in it, confirming that
// in full within the budget although every trial takes 1.5 s more than
// its nominal length (half as long again as a short one), and more to
// drain when overloaded.
func TestSearchAfterFailedConfirmation(t *testing.T) {
	srv := &server{capacity: 1000, service: 200 * time.Millisecond, overhead: 1500 * time.Millisecond, warmup: 10 * time.Second,
		luck: func(tr capacity.Trial) float64 {
			if tr.Phase == capacity.PhaseConfirm {
				return 1
			}
			return 1.1
		}}
	cfg := srv.config("p99<=300ms", t)
	cfg.Budget, cfg.StartRate = bench.Duration(100*time.Second), 1000
	res, err := capacity.Search(context.Background(), cfg, srv.run)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.1f req/s, %s: %s; %d trials in %s", res.Rate, res.Stop, res.Reason, len(res.Steps), res.Spent)
	failed := 0
	for _, st := range res.Steps {
		if st.Phase == capacity.PhaseConfirm && !st.Pass {
			failed++
		}
	}
	if failed == 0 || res.Failed == nil || res.Failed.Phase != capacity.PhaseConfirm || res.Failed.Pass {
		t.Fatalf("failed %+v after %d failed confirmations: want the search to have gone below a failed confirmation", res.Failed, failed)
	}
	if edge := srv.edge(300, capacity.DefaultConfirmDuration); res.Rate > edge || res.Rate < 0.95*edge {
		t.Errorf("rate %.1f, want within 5%% under %.1f", res.Rate, edge)
	}
	assertConfirmed(t, res, 0)
	if res.Spent > cfg.Budget.D() {
		t.Errorf("spent %s of %s", res.Spent, cfg.Budget)
	}
}

// A budget that holds one short trial and the confirmations at their
// nominal lengths, but not at what they take here, stops the search before
// it confirms, saying so with the figures.
func TestSearchBudgetTooSmall(t *testing.T) {
	// 50 req/s, the start, is just over what it carries: the first trial
	// fails, with 1.5 s of overhead and a third of a second to drain
	srv := &server{capacity: 45, service: 200 * time.Millisecond, overhead: 1500 * time.Millisecond}
	cfg := srv.config("p99<=300ms", t)
	cfg.Budget = bench.Duration(cfg.MinBudget())
	res, err := capacity.Search(context.Background(), cfg, srv.run)
	if err != nil {
		t.Fatal(err)
	}
	want := "the time budget (36s) is too small for this target: one short trial and 3 confirmations need 44.3s (a 3s short trial takes 5.8s here and a 10s confirmation 12.8s, pauses and measured overhead included)"
	if res.Stop != capacity.StopBudget || res.Rate != 0 || res.Reason != want {
		t.Errorf("stop %s rate %.1f reason %q, want %q", res.Stop, res.Rate, res.Reason, want)
	}
	if len(res.Steps) != 1 || res.Spent > cfg.Budget.D() {
		t.Errorf("%d trials in %s, want the first alone", len(res.Steps), res.Spent)
	}
}

// A run's budget is shared by its targets as their searches start: what
// the searches before left, evenly among the targets still to search, at
// least one search's minimum.
func TestShared(t *testing.T) {
	cfg := capacity.Config{CapacitySpec: bench.CapacitySpec{Budget: bench.Duration(time.Minute)}}
	for _, tt := range []struct {
		name         string
		total, spent time.Duration
		left         int
		want         time.Duration
	}{
		{"the first of three", 5 * time.Minute, 0, 3, 100 * time.Second},
		{"after one that needed 40 s", 5 * time.Minute, 40 * time.Second, 2, 130 * time.Second},
		{"the last, after two that used their shares", 5 * time.Minute, 200 * time.Second, 1, 100 * time.Second},
		{"after searches that overran, one search's minimum", 5 * time.Minute, 290 * time.Second, 1, cfg.MinBudget()},
		{"no targets left counts as one", time.Minute, 0, 0, time.Minute},
	} {
		if got := cfg.Shared(tt.total, tt.spent, tt.left).Budget.D(); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

// The three targets searched one after the other on a 5-minute
// budget (heavy?duration=200, p99<=300ms), every trial taking 1.5 s more
// than its nominal length and more to drain when overloaded, each target
// first built, started and warmed up (not charged): each gets a search confirmed in full, java-platform
// within 3 % under its pool's bound, and the searches together stay within
// the budget.
func TestSearchThreeTargetsShareBudget(t *testing.T) {
	srv := &server{overhead: 1500 * time.Millisecond, service: 200 * time.Millisecond}
	total := 5 * time.Minute
	var spent time.Duration
	for i, target := range []struct {
		name      string
		capacity  float64
		startRate float64
	}{
		{"go", 4000, 0}, {"java-platform", 1000, 1000}, {"java-virtual", 1800, 0},
	} {
		srv.capacity, srv.trials, srv.warmup = target.capacity, nil, 10*time.Second
		srv.now = srv.now.Add(30 * time.Second) // build, start and check
		cfg := srv.config("p99<=300ms", t)
		cfg.StartRate = target.startRate
		cfg = cfg.Shared(total, spent, 3-i)
		share := cfg.Budget.D()
		res, err := capacity.Search(context.Background(), cfg, srv.run)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %.0f req/s, %s: %s; %d trials, %s of a %s share", target.name, res.Rate, res.Stop, res.Reason, len(res.Steps), res.Spent, share)
		assertConfirmed(t, res, 0)
		if res.Spent > share {
			t.Errorf("%s spent %s of its %s share", target.name, res.Spent, share)
		}
		if edge := srv.edge(300, capacity.DefaultConfirmDuration); res.Rate > edge {
			t.Errorf("%s: %.1f req/s above its capacity %.1f", target.name, res.Rate, edge)
		}
		if target.name == "java-platform" && res.Rate < 0.97*1000 {
			t.Errorf("java-platform %.1f req/s, want within 3%% of its pool bound 1000", res.Rate)
		}
		spent += res.Spent
	}
	if spent > total {
		t.Errorf("the searches spent %s of %s", spent, total)
	}
}

// A round passes when a majority of its confirmations pass (the default):
// one that fails between two passes is kept beside them, and the answer
// stands. Every confirmation asked runs while the round may pass; none
// more once it cannot. Asked every one (MustPass = Confirmations), the
// first failure ends the round.
func TestSearchMajorityOfConfirmations(t *testing.T) {
	for _, tt := range []struct {
		name     string
		mustPass int
		luck     []float64 // share of the capacity the n-th confirmation at the start rate sees
		want     string    // the confirmations at the start rate, in order
		answered bool      // whether the start rate is the answer
	}{
		{"majority, the middle one fails", 0, []float64{1, 0.5, 1}, "P F P", true},
		{"majority, the first one fails", 0, []float64{0.5, 1, 1}, "F P P", true},
		{"majority, two fail", 0, []float64{0.5, 0.5}, "F F", false},
		{"majority, the last two fail", 0, []float64{1, 0.5, 0.5}, "P F F", false},
		{"every one asked", 3, []float64{1, 0.5}, "P F", false},
		{"every one asked, all pass", 3, []float64{1, 1, 1}, "P P P", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			srv := &server{capacity: 1000, service: 200 * time.Millisecond, luck: func(tr capacity.Trial) float64 {
				if tr.Phase != capacity.PhaseConfirm || tr.Rate != 1000 {
					return 1
				}
				n++
				if n > len(tt.luck) {
					t.Fatalf("confirmation %d at 1000 req/s: want %d only", n, len(tt.luck))
				}
				return tt.luck[n-1]
			}}
			cfg := srv.config("p99<=300ms", t)
			cfg.StartRate, cfg.Ceiling, cfg.CeilingWhat, cfg.MustPass = 1000, 1000, "its pool's bound", tt.mustPass
			res, err := capacity.Search(context.Background(), cfg, srv.run)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, st := range res.Steps {
				if st.Phase == capacity.PhaseConfirm && st.Rate == 1000 {
					got = append(got, map[bool]string{true: "P", false: "F"}[st.Pass])
				}
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("confirmations at 1000 req/s: %v, want %s", got, tt.want)
			}
			if answered := res.Rate == 1000; answered != tt.answered {
				t.Fatalf("answer %.0f req/s (%s), want 1000 answered: %v", res.Rate, res.Reason, tt.answered)
			}
			wantMust := tt.mustPass
			if wantMust == 0 {
				wantMust = 2
			}
			if res.MustPass != wantMust || res.Asked != 3 {
				t.Errorf("must pass %d of %d, want %d of 3", res.MustPass, res.Asked, wantMust)
			}
			if tt.answered && len(res.Confirmations) != len(tt.luck) {
				t.Errorf("answer kept %d confirmations, want all %d that ran, the failed one with them", len(res.Confirmations), len(tt.luck))
			}
			if !tt.answered && (res.Failed == nil || res.Failed.Pass || res.Failed.Rate != 1000) {
				t.Errorf("failed %+v, want the round at 1000 req/s as the upper edge", res.Failed)
			}
		})
	}
}

// stalling is a target that stops for a quarter of a second at regular
// times in virtual time (a full garbage collection), the more often the
// higher the rate (period / rate s apart): a trial that holds a stall
// fails p99<=300ms, one that does not passes. This is what java-virtual
// did on JDK 25's Serial collector (1 CPU): MarkSweepCompact pauses of
// 0.19–0.27 s, about 13 s apart at 3,000 req/s and 27 s at 1,500, every
// failed 10 s confirmation holding one and no passing one.
type stalling struct {
	*server
	period float64 // stalls are period/rate seconds apart
	start  time.Time
}

func (s *stalling) run(ctx context.Context, t capacity.Trial) (capacity.Outcome, error) {
	began := s.now.Sub(s.start).Seconds()
	out, err := s.server.run(ctx, t)
	if s.len() == 1 {
		began += out.Warmup.Seconds()
	}
	gap := s.period / t.Rate
	next := math.Ceil(began/gap) * gap
	if next < began+t.Duration.Seconds() {
		out.Stats.Latency.P99 = 450
	}
	return out, err
}

func (s *stalling) len() int { return len(s.server.trials) }

// A target that fails confirmations by rare stalls alone, more often the
// higher the rate, on java-virtual's share of a 5-minute budget for three
// targets (3m07s): the search ends on a confirmed rate by the default (a
// majority of confirmations), and asked every confirmation to pass it
// still ends on one, the last round going down to half the lowest rate
// that failed.
func TestSearchRareStalls(t *testing.T) {
	for _, mustPass := range []int{0, 3} {
		t.Run(fmt.Sprintf("must pass %d", mustPass), func(t *testing.T) {
			srv := &stalling{server: &server{capacity: 6000, service: 200 * time.Millisecond, overhead: 1200 * time.Millisecond, warmup: 40 * time.Second},
				period: 40000}
			srv.start = srv.now
			cfg := srv.config("p99<=300ms", t)
			cfg.Budget, cfg.MustPass = bench.Duration(187*time.Second), mustPass
			res, err := capacity.Search(context.Background(), cfg, srv.run)
			if err != nil {
				t.Fatal(err)
			}
			var trials []string
			for _, st := range res.Steps {
				trials = append(trials, fmt.Sprintf("%s %.0f %v", st.Phase, st.Rate, st.Pass))
			}
			t.Logf("%.0f req/s, %s: %s; %s in %s", res.Rate, res.Stop, res.Reason, strings.Join(trials, ", "), res.Spent)
			if res.Rate == 0 {
				t.Fatalf("no rate confirmed: %s", res.Reason)
			}
			if res.Spent > cfg.Budget.D() {
				t.Errorf("spent %s of %s", res.Spent, cfg.Budget)
			}
			want := res.MustPass
			passed := 0
			for _, c := range res.Confirmations {
				if c.Pass {
					passed++
				} else if len(c.Violations) == 0 {
					t.Errorf("failed confirmation %+v says no violation", c)
				}
			}
			if passed < want || len(res.Confirmations) != res.Asked && res.Stop != capacity.StopBudget {
				t.Errorf("answer's confirmations: %d passed of %d run, want %d of %d", passed, len(res.Confirmations), want, res.Asked)
			}
		})
	}
}

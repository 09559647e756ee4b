package bench_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
)

func TestParseObjective(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []bench.Term
		str  string // written back
	}{
		{"p99<=250ms,errors<=0.1%", []bench.Term{{Metric: "p99", Max: 250}, {Metric: "errors", Max: 0.001}}, "p99<=250ms,errors<=0.1%"},
		// spaces, upper case and a bare "<" are accepted
		{" P50 < 1.5s , p999<=2s ", []bench.Term{{Metric: "p50", Max: 1500}, {Metric: "p999", Max: 2000}}, "p50<=1.5s,p999<=2s"},
		// a bare number is a ratio
		{"drops<=0,errors<=0.01", []bench.Term{{Metric: "drops", Max: 0}, {Metric: "errors", Max: 0.01}}, "drops<=0%,errors<=1%"},
		{"p90<=800us,p95<=1ms", []bench.Term{{Metric: "p90", Max: 0.8}, {Metric: "p95", Max: 1}}, "p90<=800µs,p95<=1ms"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			o, err := bench.ParseObjective(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(o.Terms, tt.want) {
				t.Errorf("terms %+v, want %+v", o.Terms, tt.want)
			}
			if got := o.String(); got != tt.str {
				t.Errorf("String() = %q, want %q", got, tt.str)
			}
		})
	}
}

func TestParseObjectiveErrors(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // part of the message: the term at fault and why
	}{
		{"", "empty"},
		{"p99<=250ms,", "empty term"},
		{"p99=250ms", `"p99=250ms": want metric<=value`},
		{"p98<=250ms", `unknown metric "p98"`},
		{"p99<=250", `"p99<=250": p99 needs a positive duration`},
		{"p99<=-1s", "positive duration"},
		{"errors<=5", `ratio "5" is above 1 (write 5% for a percentage)`},
		{"errors<=lots", `"errors<=lots": errors needs a share`},
		{"drops<=150%", "between 0% and 100%"},
		{"errors<=NaN", "needs a share"},
		{"p99<=1s,p99<=2s", "p99 is limited twice"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			_, err := bench.ParseObjective(tt.in)
			if err == nil {
				t.Fatal("no error")
			}
			if bench.ErrorCode(err) != bench.EINVALID {
				t.Errorf("code %q, want invalid", bench.ErrorCode(err))
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "objective: ") || !strings.Contains(msg, tt.want) {
				t.Errorf("error %q, want objective: …%s…", msg, tt.want)
			}
		})
	}
}

// checkCase is a window and the violations an objective finds in it.
type checkCase struct {
	name  string
	stats bench.Stats
	want  []string
}

// testCheck runs objective's Check over cases.
func testCheck(t *testing.T, objective string, cases []checkCase) {
	t.Helper()
	o, err := bench.ParseObjective(objective)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range o.Check(tt.stats) {
				got = append(got, v.String())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("violations %q, want %q", got, tt.want)
			}
		})
	}
}

func TestObjectiveCheck(t *testing.T) {
	testCheck(t, "p99<=250ms,errors<=1%,drops<=0", []checkCase{
		{"meets", bench.Stats{Requests: 1000, Successes: 995, Latency: bench.Latency{P99: 240}}, nil},
		// the bound itself is within the objective
		{"at the bounds", bench.Stats{Requests: 1000, Successes: 990, Latency: bench.Latency{P99: 250}}, nil},
		{"slow", bench.Stats{Requests: 1000, Successes: 1000, Latency: bench.Latency{P99: 412}}, []string{"p99 412ms > 250ms"}},
		// to 0.1 ms
		{"slow by a fraction", bench.Stats{Requests: 1000, Successes: 1000, Latency: bench.Latency{P99: 338.687}}, []string{"p99 338.7ms > 250ms"}},
		// drops count as drops, not as errors
		{"dropping", bench.Stats{Requests: 1000, Successes: 980, Dropped: 20, Latency: bench.Latency{P99: 100}}, []string{"drops 2% > 0%"}},
		{"everything", bench.Stats{Requests: 1000, Successes: 900, Dropped: 50, Latency: bench.Latency{P99: 300}},
			[]string{"p99 300ms > 250ms", "errors 5% > 1%", "drops 5% > 0%"}},
		// nothing sent proves nothing
		{"empty", bench.Stats{}, []string{"errors 100% > 0%"}},
	})
}

// A request that got no answer is slower than any latency bound: the
// percentiles are of the answered requests only (a refused connection
// "answers" in microseconds), so a window whose target died, every request
// refused and none timed, has no latency and must not meet a latency
// objective (a capacity search's trial at 3,264 req/s passed "p99<=300ms"
// so, java-virtual having died of OutOfMemoryError in the trial before).
// Under the share a percentile leaves out, the answered percentile stands.
func TestObjectiveUnanswered(t *testing.T) {
	testCheck(t, "p99<=300ms", []checkCase{
		{"every request refused", bench.Stats{Requests: 9792, StatusCodes: map[string]int64{"0": 9792}}, []string{"p99 > 300ms: 100% of requests got no answer"}},
		{"2% unanswered, the rest fast", bench.Stats{Requests: 1000, Successes: 980, StatusCodes: map[string]int64{"200": 980, "0": 20}, Latency: bench.Latency{P99: 200}},
			[]string{"p99 > 300ms: 2% of requests got no answer"}},
		{"0.5% unanswered, the rest fast", bench.Stats{Requests: 1000, Successes: 995, StatusCodes: map[string]int64{"200": 995, "0": 5}, Latency: bench.Latency{P99: 200}}, nil},
		// an answer that is an error has a latency, and is timed
		{"every request a 500", bench.Stats{Requests: 1000, StatusCodes: map[string]int64{"500": 1000}, Latency: bench.Latency{P99: 2}}, nil},
	})
}

func TestPrepareChecksCapacity(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    bench.CapacitySpec
		want string
	}{
		{"objective", bench.CapacitySpec{Objective: "p99<=fast"}, `capacity.objective: "p99<=fast": p99 needs a positive duration`},
		{"no objective", bench.CapacitySpec{}, "capacity.objective: empty"},
		{"precision", bench.CapacitySpec{Objective: "p99<=1s", Precision: 1.5}, "capacity.precision: 1.5 is not a relative width"},
		{"negative confirmations", bench.CapacitySpec{Objective: "p99<=1s", Confirmations: -1}, "capacity.confirmations: -1: at least one confirmation is needed (0 for the default, 3)"},
		{"more to pass than run", bench.CapacitySpec{Objective: "p99<=1s", Confirmations: 4, MustPass: 5}, "capacity.mustPass: 5 is not between 1 and the 4 confirmations (0 for the default, a majority: 3)"},
		{"more to pass than the default run", bench.CapacitySpec{Objective: "p99<=1s", MustPass: 4}, "capacity.mustPass: 4 is not between 1 and the 3 confirmations (0 for the default, a majority: 2)"},
		{"negative to pass", bench.CapacitySpec{Objective: "p99<=1s", MustPass: -1}, "capacity.mustPass: -1 is not between 1 and the 3 confirmations (0 for the default, a majority: 2)"},
		{"negative budget", bench.CapacitySpec{Objective: "p99<=1s", Budget: -1}, "capacity.budget: must not be negative, got -1ns"},
		{"negative settle", bench.CapacitySpec{Objective: "p99<=1s", Settle: -1}, "capacity.settle: must not be negative"},
		// 30 s is below a 3 s trial and three 10 s confirmations with 1 s pauses
		{"budget below one search", bench.CapacitySpec{Objective: "p99<=1s", Budget: bench.Duration(30e9)},
			"capacity.budget: 30s is below one trial of the search (a 3s trial and 3 confirmations of 10s, with 1s pauses: 36s)"},
		// the default budget, 100 s a target, is below three 40 s confirmations
		{"default budget below one search", bench.CapacitySpec{Objective: "p99<=1s", ConfirmDuration: bench.Duration(40e9)},
			"capacity.budget: the default budget of 1m40s is below one trial of the search (a 3s trial and 3 confirmations of 40s, with 1s pauses: 2m6s)"},
		{"start above the highest rate", bench.CapacitySpec{Objective: "p99<=1s", StartRate: 500, MaxRate: 100}, "capacity.startRate: 500 req/s is not between the minimum 1 and the maximum 100"},
		// below the lowest rate a search tries it would give up at once (found only by the search before)
		{"start below the lowest rate", bench.CapacitySpec{Objective: "p99<=1s", StartRate: 0.5}, "capacity.startRate: 0.5 req/s is not between the minimum 1 and the maximum 20000"},
		{"highest rate below the lowest", bench.CapacitySpec{Objective: "p99<=1s", StartRate: 0.5, MaxRate: 0.5}, "capacity.maxRate: 0.5 req/s is below the lowest rate a search tries, 1"},
		{"highest rate above the guardrail", bench.CapacitySpec{Objective: "p99<=1s", MaxRate: 1e6}, "capacity.maxRate: 1e+06 req/s is above the configured maximum rate 20000"},
		{"trial above the guardrail", bench.CapacitySpec{Objective: "p99<=1s", ConfirmDuration: bench.Duration(2 * 3600e9)}, "capacity: a trial or pause is longer than the configured maximum stage 1h0m0s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec := bench.RunSpec{Targets: []string{"go"}, Capacity: &tt.c,
				Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light"}}}}
			err := bench.Prepare(&spec, bench.Catalog{Targets: []bench.TargetInfo{{Name: "go", Kind: "go"}}, Builtins: builtin.Set})
			if err == nil || bench.ErrorCode(err) != bench.EINVALID || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want …%s…", err, tt.want)
			}
		})
	}
}

// Check is the one place a search's settings are checked, for a spec and
// for a search's configuration alike: fields within the capacity object,
// the budget shared by the targets, no NaN passing for a number.
func TestCapacityCheck(t *testing.T) {
	for _, tt := range []struct {
		name    string
		c       bench.CapacitySpec
		targets int
		want    string // "" when valid
	}{
		{"defaults", bench.CapacitySpec{Objective: "p99<=1s"}, 3, ""},
		{"budget shared", bench.CapacitySpec{Objective: "p99<=1s", Budget: bench.Duration(90e9)}, 3,
			"budget: shared by 3 targets, 30s is below one trial of the search (a 3s trial and 3 confirmations of 10s, with 1s pauses: 36s)"},
		{"budget enough for each", bench.CapacitySpec{Objective: "p99<=1s", Budget: bench.Duration(108e9)}, 3, ""},
		{"precision NaN", bench.CapacitySpec{Objective: "p99<=1s", Precision: math.NaN()}, 1, "precision: NaN is not a relative width"},
		{"start NaN", bench.CapacitySpec{Objective: "p99<=1s", StartRate: math.NaN(), MaxRate: 100}, 1, "startRate: NaN req/s is not between"},
		{"start without a highest rate", bench.CapacitySpec{Objective: "p99<=1s", StartRate: 0.2}, 1, "startRate: 0.2 req/s is below the lowest rate a search tries, 1"},
		{"negative trial", bench.CapacitySpec{Objective: "p99<=1s", TrialDuration: -1}, 1, "trialDuration: must not be negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Check(tt.targets)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)) {
				t.Errorf("Check = %v, want %q", err, tt.want)
			}
		})
	}
}

// A search needs no profile: Prepare gives it its own, an open stage at the
// start rate as long as a confirmation, keeping the load engine chosen,
// and the guardrail's rate as its highest. Prepared again (a stored run),
// the spec stays the same. A profile of one's own is refused.
func TestPrepareAcceptsCapacity(t *testing.T) {
	spec := bench.RunSpec{Targets: []string{"go", "java-platform", "java-virtual"}, Profile: bench.Profile{Engine: "vegeta"},
		Capacity: &bench.CapacitySpec{Objective: "p99<=300ms", Budget: bench.Duration(5 * 60e9), StartRate: 400},
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light"}}}}
	catalog := bench.Catalog{Targets: []bench.TargetInfo{{Name: "go", Kind: "go"}, {Name: "java-platform", Kind: "java"}, {Name: "java-virtual", Kind: "java"}}, Builtins: builtin.Set}
	if err := bench.Prepare(&spec, catalog); err != nil {
		t.Fatal(err)
	}
	p := spec.Profile
	if p.Name != bench.CapacityProfileName || p.Model != bench.ModelOpen || len(p.Stages) != 1 || p.Stages[0].Rate != 400 ||
		p.Stages[0].Duration != bench.DefaultCapacityConfirm || p.Engine != "vegeta" || spec.Capacity.MaxRate != bench.DefaultGuardrails.MaxRate {
		t.Errorf("profile %+v, capacity %+v", p, spec.Capacity)
	}
	again := spec
	if err := bench.Prepare(&again, catalog); err != nil || !reflect.DeepEqual(again.Profile, spec.Profile) {
		t.Errorf("prepared again: %v, %+v", err, again.Profile)
	}
	for _, p := range []bench.Profile{{Name: "smoke"}, {Model: bench.ModelClosed}, {Stages: []bench.Stage{{Duration: bench.Duration(1e9), Rate: 5}}},
		{Workload: &bench.Workload{Iteration: []bench.Step{}}}, {Scale: 2}, {Model: "bogus"}} {
		own := bench.RunSpec{Targets: []string{"go"}, Profile: p, Capacity: &bench.CapacitySpec{Objective: "p99<=300ms"}}
		var e *bench.Error
		if err := bench.Prepare(&own, catalog); !asError(err, &e) || e.Field != "profile" {
			t.Errorf("profile %+v: %v, want an error naming profile", p, err)
		}
	}
}

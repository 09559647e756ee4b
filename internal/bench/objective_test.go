package bench_test

import (
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

func TestObjectiveCheck(t *testing.T) {
	o, err := bench.ParseObjective("p99<=250ms,errors<=1%,drops<=0")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		stats bench.Stats
		want  []string
	}{
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
	} {
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

func TestPrepareChecksCapacity(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    bench.CapacitySpec
		want string
	}{
		{"objective", bench.CapacitySpec{Objective: "p99<=fast"}, `capacity.objective: "p99<=fast": p99 needs a positive duration`},
		{"no objective", bench.CapacitySpec{}, "capacity.objective: empty"},
		{"precision", bench.CapacitySpec{Objective: "p99<=1s", Precision: 1.5}, "capacity.precision: 1.5 is not a relative width"},
		{"negative budget", bench.CapacitySpec{Objective: "p99<=1s", Budget: -1}, "capacity: durations must not be negative"},
		// 30 s is below a 3 s trial and three 10 s confirmations with 1 s pauses
		{"budget below one search", bench.CapacitySpec{Objective: "p99<=1s", Budget: bench.Duration(30e9)},
			"capacity.budget: 30s shared by 1 target(s) is below one search each (a 3s trial and 3 confirmations of 10s, with 1s pauses: 36s)"},
		{"start above the highest rate", bench.CapacitySpec{Objective: "p99<=1s", StartRate: 500, MaxRate: 100}, "capacity.startRate: 500 req/s is above the search's highest rate 100"},
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

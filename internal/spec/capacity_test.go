package spec_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/spec"
)

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
			rs := bench.RunSpec{Targets: []string{"go"}, Capacity: &tt.c,
				Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light"}}}}
			err := spec.Prepare(&rs, bench.Catalog{Targets: []bench.TargetInfo{{Name: "go", Kind: "go"}}, Builtins: builtin.Set})
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
	rs := bench.RunSpec{Targets: []string{"go", "java-platform", "java-virtual"}, Profile: bench.Profile{Engine: "vegeta"},
		Capacity: &bench.CapacitySpec{Objective: "p99<=300ms", Budget: bench.Duration(5 * 60e9), StartRate: 400},
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light"}}}}
	catalog := bench.Catalog{Targets: []bench.TargetInfo{{Name: "go", Kind: "go"}, {Name: "java-platform", Kind: "java"}, {Name: "java-virtual", Kind: "java"}}, Builtins: builtin.Set}
	if err := spec.Prepare(&rs, catalog); err != nil {
		t.Fatal(err)
	}
	p := rs.Profile
	if p.Name != bench.CapacityProfileName || p.Model != bench.ModelOpen || len(p.Stages) != 1 || p.Stages[0].Rate != 400 ||
		p.Stages[0].Duration != bench.DefaultCapacityConfirm || p.Engine != "vegeta" || rs.Capacity.MaxRate != bench.DefaultGuardrails.MaxRate {
		t.Errorf("profile %+v, capacity %+v", p, rs.Capacity)
	}
	again := rs
	if err := spec.Prepare(&again, catalog); err != nil || !reflect.DeepEqual(again.Profile, rs.Profile) {
		t.Errorf("prepared again: %v, %+v", err, again.Profile)
	}
	for _, p := range []bench.Profile{{Name: "smoke"}, {Model: bench.ModelClosed}, {Stages: []bench.Stage{{Duration: bench.Duration(1e9), Rate: 5}}},
		{Workload: &bench.Workload{Iteration: []bench.Step{}}}, {Scale: 2}, {Model: "bogus"}} {
		own := bench.RunSpec{Targets: []string{"go"}, Profile: p, Capacity: &bench.CapacitySpec{Objective: "p99<=300ms"}}
		var e *bench.Error
		if err := spec.Prepare(&own, catalog); !asError(err, &e) || e.Field != "profile" {
			t.Errorf("profile %+v: %v, want an error naming profile", p, err)
		}
	}
}

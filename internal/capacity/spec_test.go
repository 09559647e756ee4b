package capacity_test

import (
	"errors"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
)

func TestFromSpec(t *testing.T) {
	cfg, err := capacity.FromSpec(bench.CapacitySpec{Objective: "p99<=250ms,errors<=0.1%", Budget: bench.Duration(5 * time.Minute)}, 3)
	if err != nil {
		t.Fatal(err)
	}
	// five minutes for three targets
	if cfg.Budget.D() != 100*time.Second || cfg.Objective.String() != "p99<=250ms,errors<=0.1%" {
		t.Errorf("budget %s objective %s", cfg.Budget, cfg.Objective)
	}
	for _, tt := range []struct {
		name        string
		spec        bench.CapacitySpec
		field, want string
	}{
		{"objective", bench.CapacitySpec{Objective: "p99"}, "capacity.objective", `"p99": want metric<=value`},
		{"budget shared", bench.CapacitySpec{Objective: "p99<=1s", Budget: bench.Duration(time.Minute)}, "capacity.budget",
			"shared by 3 targets, 20s is below one trial of the search"},
		{"precision", bench.CapacitySpec{Objective: "p99<=1s", Precision: 1}, "capacity.precision", "1 is not a relative width"},
		{"goal negative", bench.CapacitySpec{Objective: "p99<=1s", GoalDuration: bench.Duration(-time.Second)}, "capacity.goalDuration",
			"-1s: the time the objective is judged over must be positive (0 for the default, the confirmations' own time, 30s)"},
		{"goal longer than a target's share", bench.CapacitySpec{Objective: "p99<=1s", Budget: bench.Duration(5 * time.Minute), GoalDuration: bench.Duration(2 * time.Minute)},
			"capacity.goalDuration", "2m0s is longer than a target's search may take (1m40s)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := capacity.FromSpec(tt.spec, 3)
			var be *bench.Error
			if !errors.As(err, &be) || be.Field != tt.field || len(be.Message) < len(tt.want) || be.Message[:len(tt.want)] != tt.want {
				t.Errorf("error %v, want %s: %s…", err, tt.field, tt.want)
			}
		})
	}
}

// A goal longer than the confirmations asked runs more of them: 60 s of
// 10 s confirmations is six, judged pooled; a strict rule keeps its own.
func TestFromSpecGoal(t *testing.T) {
	cfg, err := capacity.FromSpec(bench.CapacitySpec{Objective: "p99<=1s", Budget: bench.Duration(5 * time.Minute), GoalDuration: bench.Duration(time.Minute)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Validate() != nil || cfg.GoalDuration.D() != time.Minute || cfg.Confirmations != 0 {
		t.Fatalf("config %+v", cfg)
	}
	if got := (bench.CapacitySpec{GoalDuration: bench.Duration(time.Minute)}).Windows(); got != 6 {
		t.Errorf("%d windows for a 60 s goal, want 6", got)
	}
	if got := (bench.CapacitySpec{GoalDuration: bench.Duration(time.Minute), MustPass: 3}).Windows(); got != 3 {
		t.Errorf("%d windows under the strict rule, want the 3 asked", got)
	}
}

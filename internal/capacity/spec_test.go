package capacity_test

import (
	"errors"
	"strings"
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
	if cfg.Budget != 100*time.Second || cfg.Objective.String() != "p99<=250ms,errors<=0.1%" {
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

// An answer above a pool's bound passed its trials only because the queue
// grew too slowly for them to show: it is held to the bound, and says so;
// one below it stands.
func TestResultCap(t *testing.T) {
	above := &capacity.Result{Rate: 1008.5, Reason: "the bracket is 1.1% wide"}
	above.Cap(1000, "its 200-thread pool's bound")
	if above.Rate != 1000 || !strings.Contains(above.Reason, "held to its 200-thread pool's bound, 1000 req/s: 1008 req/s passed") {
		t.Errorf("capped: %.1f, %q", above.Rate, above.Reason)
	}
	below := &capacity.Result{Rate: 984, Reason: "r"}
	below.Cap(1000, "its pool's bound")
	if below.Rate != 984 || below.Reason != "r" {
		t.Errorf("below the bound: %.1f, %q", below.Rate, below.Reason)
	}
}

package bench_test

import (
	"context"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// attackerFunc is an Attacker by a function.
type attackerFunc func(plan bench.Plan) (*bench.AttackResult, error)

func (f attackerFunc) Run(_ context.Context, _ string, plan bench.Plan, _ bench.Observer) (*bench.AttackResult, error) {
	return f(plan)
}

func TestLoadEngineSet(t *testing.T) {
	var ran []string
	engine := func(name string) bench.Attacker {
		return attackerFunc(func(bench.Plan) (*bench.AttackResult, error) {
			ran = append(ran, name)
			return &bench.AttackResult{}, nil
		})
	}
	set := bench.LoadEngineSet{bench.LoadEngineOwn: engine("own"), bench.LoadEngineVegeta: engine("vegeta")}
	for _, tt := range []struct{ engine, want string }{
		{"", "own"},                        // none named: the default
		{bench.LoadEngineOwn, "own"},       // named
		{bench.LoadEngineVegeta, "vegeta"}, // the other
	} {
		ran = nil
		if _, err := set.Run(context.Background(), "", bench.Plan{Profile: bench.Profile{Engine: tt.engine}}, bench.Observer{}); err != nil {
			t.Fatal(err)
		}
		if len(ran) != 1 || ran[0] != tt.want {
			t.Errorf("engine %q ran %v, want %s", tt.engine, ran, tt.want)
		}
	}
	_, err := bench.LoadEngineSet{}.Run(context.Background(), "", bench.Plan{}, bench.Observer{})
	if e, ok := err.(*bench.Error); !ok || e.Field != "profile.engine" {
		t.Errorf("a set without the engine: %v, want an error naming profile.engine", err)
	}
}

package spec

import (
	"fmt"

	"github.com/threadbench/threadbench/internal/bench"
)

// checkGenerators refuses what a plan split among the configured swarm
// generators (Catalog.Generators) cannot send: a warm-up until steady,
// which each generator would end at its own moment, and a stage with
// fewer clients than there are generators.
func checkGenerators(spec *bench.RunSpec, c bench.Catalog) error {
	if c.Generators <= 1 {
		return nil
	}
	if w := spec.Warmup; w.UntilSteady && !w.Disabled {
		return bench.FieldErrorf("warmup.untilSteady", "the load comes from %d swarm generators (the daemon's configuration), which cannot end a warm-up together when the target settles; give the warm-up a duration and a rate, or disable it", c.Generators)
	}
	model := spec.Profile.LoadModel()
	for i, st := range spec.Profile.Stages {
		if err := model.CheckShare(st, fmt.Sprintf("profile.stages[%d]", i), c.Generators); err != nil {
			return err
		}
	}
	return nil
}

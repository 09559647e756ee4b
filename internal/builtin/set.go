package builtin

import "github.com/threadbench/threadbench/internal/bench"

// Set is every built-in profile and experiment, as spec.Prepare resolves
// the names a spec gives (bench.Catalog.Builtins).
var Set bench.Builtins = set{}

type set struct{}

func (set) LookupProfile(name string, scale float64) (bench.Profile, error) {
	return LookupProfile(name, scale)
}

func (set) ProfileNames() []string { return ProfileNames() }

func (set) LookupExperiment(name string) (bench.Experiment, error) { return LookupExperiment(name) }

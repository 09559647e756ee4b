package spec

import (
	"cmp"
	"reflect"
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
)

// resolveExperiment replaces a spec that names an experiment with the
// experiment's spec. The spec may add a name, rounds, limits and the Java
// options the experiment leaves alone (heap, collector, base image); any
// field the experiment sets itself is refused, naming it.
func resolveExperiment(spec *bench.RunSpec, builtins bench.Builtins) error {
	ref := spec.Experiment
	if ref == nil {
		return nil
	}
	e, err := builtins.LookupExperiment(ref.Name)
	if err != nil {
		return bench.FieldErrorf("experiment.name", "%s", bench.ErrorMessage(err))
	}
	if field := setByExperiment(*spec); field != "" {
		return bench.FieldErrorf(field, "experiment %s sets %s itself; leave it out (or write the experiment's spec out in full, without experiment)", e.Name, field)
	}
	if e.PinsJDK && spec.Java.JDK != 0 {
		return bench.FieldErrorf("java.jdk", "experiment %s runs each case on the JDK its name says (@21, @25); leave java.jdk out, or pick cases", e.Name)
	}
	resolved, err := e.SpecOf(*ref)
	if err != nil {
		return err
	}
	resolved.Name, resolved.Repeat, resolved.Limits = spec.Name, spec.Repeat, spec.Limits
	resolved.Java = spec.Java.With(resolved.Java)
	// The seed's JDK unless the spec picks one; none: the project's default.
	resolved.Java.JDK = cmp.Or(spec.Java.JDK, resolved.Java.JDK, e.JDK)
	if resolved.Name == "" {
		resolved.Name = experimentRunName(*resolved.Experiment)
	}
	*spec = resolved
	return nil
}

// experimentRunName names an experiment's run when the spec does not:
// "seed-003", "seed-001 callee-400".
func experimentRunName(ref bench.ExperimentRef) string {
	if ref.Part == "" {
		return ref.Name
	}
	return ref.Name + " " + ref.Part
}

// setByExperiment returns the JSON path of the first field a spec sets
// that its experiment sets itself, or "".
func setByExperiment(spec bench.RunSpec) string {
	fields := []struct {
		path  string
		value any
	}{
		{"targets", spec.Targets},
		{"cases", spec.Cases},
		{"profile", spec.Profile},
		{"workload", spec.Workload},
		{"warmup", spec.Warmup},
		{"downstream", spec.Downstream},
		{"java.tomcatMaxThreads", spec.Java.TomcatMaxThreads},
		{"java.virtualParallelism", spec.Java.VirtualParallelism},
	}
	for _, f := range fields {
		if !reflect.ValueOf(f.value).IsZero() {
			return f.path
		}
	}
	return ""
}

// PrepareRuns prepares the runs a spec asks for: one per part, in the
// experiment's order, when it names an experiment of several parts and
// picks none (each part is a run: a run has one downstream), else the spec
// alone. Every part is prepared before any is returned, so that one bad
// part refuses them all, with Prepare's error naming the field.
func PrepareRuns(spec bench.RunSpec, c bench.Catalog) ([]bench.RunSpec, error) {
	specs := experimentParts(spec, c.Builtins)
	for i := range specs {
		if err := Prepare(&specs[i], c); err != nil {
			return nil, err
		}
	}
	return specs, nil
}

// experimentParts returns one spec per part of the experiment spec names
// when it picks none, else spec alone. A name that is no experiment is
// left to Prepare, which says so.
func experimentParts(spec bench.RunSpec, builtins bench.Builtins) []bench.RunSpec {
	ref := spec.Experiment
	if ref == nil || ref.Part != "" || builtins == nil {
		return []bench.RunSpec{spec}
	}
	e, err := builtins.LookupExperiment(ref.Name)
	if err != nil || len(e.Parts) < 2 {
		return []bench.RunSpec{spec}
	}
	specs := make([]bench.RunSpec, len(e.Parts))
	for i, part := range e.Parts {
		partRef := *ref
		partRef.Part, partRef.Cases = part, slices.Clone(ref.Cases)
		specs[i] = spec
		specs[i].Experiment = &partRef
		if spec.Capacity != nil { // Prepare writes into it
			capacity := *spec.Capacity
			specs[i].Capacity = &capacity
		}
	}
	return specs
}

// noBuiltins is a catalog's Builtins when it gives none: every name is unknown.
type noBuiltins struct{}

func (noBuiltins) LookupProfile(name string, _ float64) (bench.Profile, error) {
	return bench.Profile{}, bench.Errorf(bench.ENOTFOUND, "no built-in profile %q (there are none)", name)
}

func (noBuiltins) ProfileNames() []string { return nil }

func (noBuiltins) LookupExperiment(name string) (bench.Experiment, error) {
	return bench.Experiment{}, bench.Errorf(bench.ENOTFOUND, "no built-in experiment %q (there are none)", name)
}

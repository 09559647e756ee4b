package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// applySpringBoot writes a run's Spring Boot line (java.springBoot, run
// --spring-boot), or a case's own, into each reference to a target built
// on several lines that names none: java-virtual on 3.5 as
// java-virtual@boot=3.5, in the targets and in each case's, so that the
// run records, builds and labels the line it ran. A reference that names
// its line keeps it; one that does not parse is left to the checks after.
// A line no target of the run offers is refused, naming those that do.
func applySpringBoot(spec *bench.RunSpec, c bench.Catalog) error {
	if spec.Java.SpringBoot == "" && !slices.ContainsFunc(spec.Cases, func(cs bench.Case) bool { return cs.Java != nil && cs.Java.SpringBoot != "" }) {
		return nil
	}
	applied := false
	for i := range spec.Cases {
		cs := &spec.Cases[i]
		line, field := spec.Java.SpringBoot, "java.springBoot"
		if cs.Java != nil && cs.Java.SpringBoot != "" {
			line, field = cs.Java.SpringBoot, fmt.Sprintf("cases[%d].java.springBoot", i)
		}
		ref, ok, err := onSpringBoot(cs.Target, line, field, c)
		if err != nil {
			return err
		}
		cs.Target, applied = ref, applied || ok
	}
	if len(spec.Cases) > 0 {
		spec.Targets = nil
		if err := casesToTargets(spec); err != nil {
			return err
		}
	} else {
		var out []string
		for _, t := range spec.Targets {
			ref, ok, err := onSpringBoot(t, spec.Java.SpringBoot, "java.springBoot", c)
			if err != nil {
				return err
			}
			applied = applied || ok
			if !slices.Contains(out, ref) {
				out = append(out, ref)
			}
		}
		spec.Targets = out
	}
	if line := spec.Java.SpringBoot; line != "" && !applied {
		return bench.FieldErrorf("java.springBoot", "no target of the run is built on several Spring Boot lines (%s): %s are", strings.Join(spec.Targets, ", "), strings.Join(springBootTargets(c), " and "))
	}
	return nil
}

// onSpringBoot writes line into ref when its target has a Spring Boot
// axis and ref names none (ok: the target has the axis).
func onSpringBoot(ref, line, field string, c bench.Catalog) (string, bool, error) {
	if line == "" {
		return ref, false, nil
	}
	info, err := bench.LookupTarget(c.Targets, ref)
	if err != nil {
		return ref, false, nil
	}
	axis, ok := info.AxisOf(bench.AxisSpringBoot)
	if !ok {
		return ref, false, nil
	}
	if !slices.Contains(axis.Values, line) {
		return "", false, bench.FieldErrorf(field, "%s is built on Spring Boot %s, got %q", info.Name, strings.Join(axis.Values, " or "), line)
	}
	r := bench.ParseTargetRef(ref)
	values, err := info.ParseVariant(r.Variant, "")
	if err != nil || values[bench.AxisSpringBoot] != "" {
		return ref, true, nil
	}
	values[bench.AxisSpringBoot] = line
	return bench.TargetRef{Name: r.Name, Variant: info.VariantName(values)}.String(), true, nil
}

// springBootTargets names the catalog's targets built on several Spring
// Boot lines.
func springBootTargets(c bench.Catalog) []string {
	var out []string
	for _, t := range c.Targets {
		if _, ok := t.AxisOf(bench.AxisSpringBoot); ok {
			out = append(out, t.Name)
		}
	}
	return out
}

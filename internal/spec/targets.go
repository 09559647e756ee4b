package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// expandTargets writes each of a spec's targets as its variants: a
// reference to a service of one's own that leaves axes out names every
// variant with the others (orders@jdk=21: orders@platform,jdk=21 and
// orders@virtual,jdk=21), its JDK the run's (java.jdk) where it has a JDK
// axis and the reference names none; any other is written in the
// canonical form (java-virtual@jdk=21 as java-virtual@21). A variant
// named twice is run once. The references are checked already.
func expandTargets(spec *bench.RunSpec, c bench.Catalog) error {
	var out []string
	for i, ref := range spec.Targets {
		refs, err := expandTarget(ref, spec.Java.JDK, c.Targets, fmt.Sprintf("targets[%d]", i))
		if err != nil {
			return err
		}
		for _, r := range refs {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	spec.Targets = out
	return nil
}

// expandTarget returns the variants one reference names.
func expandTarget(ref string, jdk int, infos []bench.TargetInfo, field string) ([]string, error) {
	info, err := bench.LookupTarget(infos, ref)
	if err != nil {
		return nil, bench.FieldErrorf(field, "%s", bench.ErrorMessage(err))
	}
	r := bench.ParseTargetRef(ref)
	values, err := info.ParseVariant(r.Variant, field)
	if err != nil {
		return nil, err
	}
	if !info.RunsEachVariant() {
		return []string{bench.TargetRef{Name: r.Name, Variant: info.VariantName(values)}.String()}, nil
	}
	if axis, ok := info.AxisOf(bench.AxisJDK); ok && jdk != 0 && values[bench.AxisJDK] == "" {
		if !slices.Contains(axis.Values, strconv.Itoa(jdk)) {
			return nil, bench.FieldErrorf("java.jdk", "target %s has no jdk %d (jdk: %s)", info.Name, jdk, strings.Join(axis.Values, ", "))
		}
		values[bench.AxisJDK] = strconv.Itoa(jdk)
	}
	variants := info.Matching(values)
	refs := make([]string, len(variants))
	for i, v := range variants {
		refs[i] = bench.TargetRef{Name: r.Name, Variant: v}.String()
	}
	return refs, nil
}

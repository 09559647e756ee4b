package main

import (
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

// checkJDKs checks --jdk: Java majors this host builds a JRE for, each
// once. One is the run's JDK (java.jdk); several are an axis, which
// eachJDK and a service's definition apply.
func (o *ownFlags) checkJDKs(fs *pflag.FlagSet, spec *bench.RunSpec) error {
	if !fs.Changed("jdk") {
		return nil
	}
	majors := targets.JavaMajors()
	for i, major := range o.jdks {
		if !slices.Contains(majors, major) {
			return bench.FieldErrorf("jdk", "this host builds JREs for Java %s only, got %d", joinInts(majors, " and "), major)
		}
		if slices.Index(o.jdks, major) < i {
			return bench.FieldErrorf("jdk", "Java %d is given twice", major)
		}
	}
	spec.Java.JDK = 0
	if len(o.jdks) == 1 {
		spec.Java.JDK = o.jdks[0]
	}
	return nil
}

// eachJDK runs each target that varies by JDK, and whose reference names
// none, on each of several --jdk: java-virtual as java-virtual@21 and
// java-virtual@25.
func (o *ownFlags) eachJDK(g *globalState, spec *bench.RunSpec) error {
	if len(o.jdks) < 2 {
		return nil
	}
	if spec.Experiment != nil || len(spec.Cases) > 0 {
		return bench.FieldErrorf("jdk", "several JDKs run each target on each: give targets, not an experiment or cases")
	}
	var out []string
	varies := false
	for _, ref := range spec.Targets {
		refs, ok := onEachJDK(g.catalog.Infos(), ref, o.jdks)
		varies = varies || ok
		out = append(out, refs...)
	}
	if !varies {
		return bench.FieldErrorf("jdk", "no target of the run varies by JDK (%s)", strings.Join(spec.Targets, ", "))
	}
	spec.Targets = out
	return nil
}

// onEachJDK writes a reference once per JDK when its target has a JDK
// axis (ok), as it is otherwise. A reference that names its JDK keeps it.
func onEachJDK(infos []bench.TargetInfo, ref string, jdks []int) ([]string, bool) {
	info, err := bench.LookupTarget(infos, ref)
	if err != nil {
		return []string{ref}, false
	}
	if _, ok := info.AxisOf(bench.AxisJDK); !ok {
		return []string{ref}, false
	}
	r := bench.ParseTargetRef(ref)
	values, err := info.ParseVariant(r.Variant, "")
	if err != nil || values[bench.AxisJDK] != "" {
		return []string{ref}, true
	}
	refs := make([]string, len(jdks))
	for i, major := range jdks {
		values[bench.AxisJDK] = strconv.Itoa(major)
		refs[i] = bench.TargetRef{Name: r.Name, Variant: info.VariantName(values)}.String()
	}
	return refs, true
}

// pickVariants returns the target's variants --variant picks: each pick
// a value of an axis (virtual, jdk=21); a variant is picked when its value
// of every axis named is one of those given.
func pickVariants(info bench.TargetInfo, picks []string) ([]string, error) {
	want := map[string][]string{}
	for _, p := range picks {
		values, err := info.ParseVariant(p, "variant")
		if err != nil {
			return nil, err
		}
		for axis, v := range values {
			want[axis] = append(want[axis], v)
		}
	}
	var out []string
	for _, v := range info.Variants {
		values, err := info.ParseVariant(v, "")
		if err == nil && pickedBy(values, want) {
			out = append(out, v)
		}
	}
	return out, nil
}

func pickedBy(values map[string]string, want map[string][]string) bool {
	for axis, vs := range want {
		if !slices.Contains(vs, values[axis]) {
			return false
		}
	}
	return true
}

// joinAxes puts back together the references a comma-separated list
// split at their axes: --targets orders@virtual,jdk=21 is one reference.
func joinAxes(items []string) []string {
	var out []string
	for _, it := range items {
		if len(out) > 0 && strings.Contains(it, "=") && !strings.Contains(it, "@") {
			out[len(out)-1] += "," + it
			continue
		}
		out = append(out, it)
	}
	return out
}

func joinInts(ns []int, sep string) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, sep)
}

// parseAxes reads --axis: AXIS.VALUE=NAME=VALUE sets an environment
// variable of an axis's value, AXIS.VALUE=-FLAG adds a JVM flag to it; the
// axes and their values in the order first given.
func parseAxes(items []string) (targets.OwnAxes, error) {
	var axes targets.OwnAxes
	for _, item := range items {
		key, setting, ok := strings.Cut(item, "=")
		axis, value, dotted := strings.Cut(key, ".")
		if !ok || !dotted || axis == "" || value == "" || setting == "" {
			return nil, bench.FieldErrorf("axis", "must be AXIS.VALUE=NAME=VALUE or AXIS.VALUE=-FLAG, got %q", item)
		}
		v := axisValue(&axes, axis, value)
		if strings.HasPrefix(setting, "-") {
			v.JVMFlags = append(v.JVMFlags, setting)
			continue
		}
		name, val, ok := strings.Cut(setting, "=")
		if !ok || name == "" {
			return nil, bench.FieldErrorf("axis", "must be AXIS.VALUE=NAME=VALUE or AXIS.VALUE=-FLAG, got %q", item)
		}
		if v.Env == nil {
			v.Env = map[string]string{}
		}
		v.Env[name] = val
	}
	return axes, nil
}

// axisValue returns an axis's value, added where it is new.
func axisValue(axes *targets.OwnAxes, axis, value string) *targets.OwnAxisValue {
	i := slices.IndexFunc(*axes, func(a targets.OwnAxis) bool { return a.Name == axis })
	if i < 0 {
		*axes = append(*axes, targets.OwnAxis{Name: axis})
		i = len(*axes) - 1
	}
	a := &(*axes)[i]
	j := slices.IndexFunc(a.Values, func(v targets.OwnAxisValue) bool { return v.Name == value })
	if j < 0 {
		a.Values = append(a.Values, targets.OwnAxisValue{Name: value})
		j = len(a.Values) - 1
	}
	return &a.Values[j]
}

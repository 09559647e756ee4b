package bench

import (
	"slices"
	"strconv"
	"strings"
)

// Axis is one dimension a target varies along: a service of one's own
// along its variants (usually its thread models), the JDK and axes of its
// own (Tomcat's pool size, the GC); a built-in Java target along the JDK.
// A target's variants are the product of its axes.
type Axis struct {
	Name    string   `json:"name"`
	Values  []string `json:"values"`
	Default string   `json:"default,omitempty"`
}

// AxisJDK names the axis of the Java major a target runs on.
const AxisJDK = "jdk"

// AxisSpringBoot names the axis of the Spring Boot line a built-in Java
// target is built on (java-virtual@boot=3.5).
const AxisSpringBoot = "boot"

// AxisBuild names the axis of the builds of one service a target runs in
// turn (several jars: build=orders, build=orders-slower).
const AxisBuild = "build"

// A variant is written after the target's name and an "@": the value of
// its first axis bare, the others as name=value, comma-separated, in the
// axes' order ("orders@virtual,jdk=21,pool=t200"; "java-virtual@21").
// Any axis may be written by name, in any order ("orders@jdk=21,virtual"),
// and a spec may leave axes out to name every variant with the others.
const (
	axisSeparator = ","
	axisAssign    = "="
)

// AxesOf returns a target's axes: Axes, or for a description that lists
// only its one variant dimension, that one.
func (t TargetInfo) AxesOf() []Axis {
	if len(t.Axes) > 0 || t.Variant == "" {
		return t.Axes
	}
	return []Axis{{Name: t.Variant, Values: t.Variants, Default: t.DefaultVariant}}
}

// AxisOf returns the target's axis of a name.
func (t TargetInfo) AxisOf(name string) (Axis, bool) {
	axes := t.AxesOf()
	i := slices.IndexFunc(axes, func(a Axis) bool { return a.Name == name })
	if i < 0 {
		return Axis{}, false
	}
	return axes[i], true
}

// ParseVariant reads the part of a reference after its "@" into a value
// per axis it names; field is the reference's path in messages. Axes it
// leaves out are absent.
func (t TargetInfo) ParseVariant(variant, field string) (map[string]string, error) {
	values := map[string]string{}
	if variant == "" {
		return values, nil
	}
	axes := t.AxesOf()
	if len(axes) == 0 {
		return nil, FieldErrorf(field, "target %s has no variants, got %q", t.Name, "@"+variant)
	}
	for item := range strings.SplitSeq(variant, axisSeparator) {
		name, value, named := strings.Cut(item, axisAssign)
		if !named {
			name, value = axes[0].Name, item
		}
		axis, ok := t.AxisOf(name)
		switch {
		case !ok:
			return nil, FieldErrorf(field, "target %s has no axis %q (axes: %s)", t.Name, name, strings.Join(axisNames(axes), ", "))
		case values[name] != "" && !named:
			return nil, FieldErrorf(field, "target %s: %q and %q are both its %s; name the other axes (%s)", t.Name, values[name], value, name, exampleAxis(axes))
		case values[name] != "":
			return nil, FieldErrorf(field, "target %s: its %s is given twice", t.Name, name)
		case !slices.Contains(axis.Values, value):
			return nil, FieldErrorf(field, "target %s has no %s %q (%s: %s)", t.Name, name, value, name, strings.Join(axis.Values, ", "))
		}
		values[name] = value
	}
	return values, nil
}

// exampleAxis shows how an axis other than the first is named.
func exampleAxis(axes []Axis) string {
	if len(axes) < 2 {
		return "it has one axis"
	}
	return axes[1].Name + axisAssign + axes[1].Values[0]
}

func axisNames(axes []Axis) []string {
	names := make([]string, len(axes))
	for i, a := range axes {
		names[i] = a.Name
	}
	return names
}

// VariantName writes a value per axis as a reference writes it: the
// axes in their order, the first bare, the others as name=value; axes
// without a value are left out.
func (t TargetInfo) VariantName(values map[string]string) string {
	var parts []string
	for i, a := range t.AxesOf() {
		v, ok := values[a.Name]
		switch {
		case !ok:
		case i == 0:
			parts = append(parts, v)
		default:
			parts = append(parts, a.Name+axisAssign+v)
		}
	}
	return strings.Join(parts, axisSeparator)
}

// Refs are the references a spec may give the target, as the API's
// document lists them: its name, each variant, and for a target on
// several axes each axis's values alone ("java-virtual@21",
// "java-virtual@boot=3.5"), which run with the other axes' defaults (a
// built-in target) or name every variant with that value (a service of
// one's own).
func (t TargetInfo) Refs() []string {
	refs := []string{t.Name}
	for _, v := range t.Variants {
		refs = append(refs, t.Name+"@"+v)
	}
	if axes := t.AxesOf(); len(axes) > 1 {
		for _, a := range axes {
			for _, v := range a.Values {
				refs = append(refs, t.Name+"@"+t.VariantName(map[string]string{a.Name: v}))
			}
		}
	}
	return refs
}

// Complete fills the axes values leaves out with their defaults.
func (t TargetInfo) Complete(values map[string]string) map[string]string {
	out := make(map[string]string, len(values))
	for _, a := range t.AxesOf() {
		if v, ok := values[a.Name]; ok {
			out[a.Name] = v
		} else if a.Default != "" {
			out[a.Name] = a.Default
		}
	}
	return out
}

// Matching returns the target's variants whose values agree with those
// given, in the target's order: every variant when none are given.
func (t TargetInfo) Matching(values map[string]string) []string {
	var out []string
	for _, v := range t.Variants {
		full, err := t.ParseVariant(v, "")
		if err != nil {
			continue
		}
		if matches(full, values) {
			out = append(out, v)
		}
	}
	return out
}

func matches(full, some map[string]string) bool {
	for k, v := range some {
		if full[k] != v {
			return false
		}
	}
	return true
}

// CanonicalRef writes a reference as the catalog names the variant it
// runs: its axes in order, those it leaves out at their defaults
// ("orders@jdk=21" as "orders@platform,jdk=21"), and run-wide jdk for a
// target with a JDK axis whose reference names none (0: the default). A
// reference that does not parse is returned as it is.
func CanonicalRef(infos []TargetInfo, ref string, jdk int) string {
	info, err := LookupTarget(infos, ref)
	if err != nil || len(info.AxesOf()) == 0 {
		return ref
	}
	r := ParseTargetRef(ref)
	values, err := info.ParseVariant(r.Variant, "")
	if err != nil {
		return ref
	}
	if axis, ok := info.AxisOf(AxisJDK); ok && jdk != 0 && values[AxisJDK] == "" && slices.Contains(axis.Values, strconv.Itoa(jdk)) {
		values[AxisJDK] = strconv.Itoa(jdk)
	}
	return TargetRef{Name: r.Name, Variant: info.VariantName(info.Complete(values))}.String()
}

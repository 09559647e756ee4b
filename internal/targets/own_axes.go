package targets

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/threadbench/threadbench/internal/bench"
)

// OwnAxis is a named axis of a target of one's own: values, each a set of
// environment variables and JVM flags, that its variants run in turn
// (pool: {t200: {SERVER_TOMCAT_THREADS_MAX: "200"}, t400: {...}}). Every
// variant runs in one value of each axis.
type OwnAxis struct {
	Name   string
	Values []OwnAxisValue
}

// OwnAxisValue is one value of an axis, in either form of a variant:
// {env, jvmFlags}, or the environment alone.
type OwnAxisValue struct {
	Name string
	OwnVariant
}

// OwnAxes are a target's named axes in the order the configuration gives
// them, their values in theirs: the first value is each axis's base, that
// the report pairs the others with.
type OwnAxes []OwnAxis

// UnmarshalYAML reads a mapping of axes, each a mapping of values, in order.
func (a *OwnAxes) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: axes must be a mapping of axis names to their values", node.Line)
	}
	for i := 0; i+1 < len(node.Content); i += 2 {
		axis := OwnAxis{Name: node.Content[i].Value}
		values := node.Content[i+1]
		if values.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: axis %s must be a mapping of value names to their environment", values.Line, axis.Name)
		}
		for j := 0; j+1 < len(values.Content); j += 2 {
			v := OwnAxisValue{Name: values.Content[j].Value}
			if err := values.Content[j+1].Decode(&v.OwnVariant); err != nil {
				return err
			}
			axis.Values = append(axis.Values, v)
		}
		*a = append(*a, axis)
	}
	return nil
}

// JavaMajors are the Java majors the project builds a JRE for, as a
// target's JDK axis offers them.
func JavaMajors() []int {
	out := make([]int, len(javaVariant.Values))
	for i, v := range javaVariant.Values {
		out[i], _ = strconv.Atoi(v)
	}
	return out
}

// reservedAxes are the names of the axes every target of one's own has.
var reservedAxes = map[string]string{
	bench.VariantOwn: "its variants' axis",
	"threadmodel":    "its variants' axis (its thread models)",
	bench.AxisJDK:    "the JDK axis (jdk, jdks)",
	bench.AxisBuild:  "the builds' axis (jars)",
}

// validateAxes checks the JDKs and the named axes of a definition.
func (o Own) validateAxes(field string) error {
	if err := o.validateJDKs(field); err != nil {
		return err
	}
	var seen []string
	for _, a := range o.Axes {
		af := sub(field, "axes."+a.Name)
		switch {
		case reservedAxes[strings.ToLower(a.Name)] != "":
			return bench.FieldErrorf(af, "collides with %s; give the axis another name", reservedAxes[strings.ToLower(a.Name)])
		case !ownName.MatchString(a.Name):
			return bench.FieldErrorf(af, "an axis's name must be lower-case letters, digits, '.', '_' or '-'")
		case slices.Contains(seen, a.Name):
			return bench.FieldErrorf(af, "axis %q is defined twice", a.Name)
		case len(a.Values) < 2:
			return bench.FieldErrorf(af, "an axis needs at least two values (it has %d); a setting every variant shares goes in env or jvmFlags", len(a.Values))
		}
		seen = append(seen, a.Name)
		if err := validateAxisValues(a, af); err != nil {
			return err
		}
	}
	return nil
}

func validateAxisValues(a OwnAxis, field string) error {
	var names []string
	for _, v := range a.Values {
		vf := field + "." + v.Name
		switch {
		case !ownName.MatchString(v.Name):
			return bench.FieldErrorf(vf, "a value's name must be lower-case letters, digits, '.', '_' or '-'")
		case slices.Contains(names, v.Name):
			return bench.FieldErrorf(vf, "value %q is defined twice", v.Name)
		case v.ThreadModel != "":
			return bench.FieldErrorf(vf+".threadModel", "the thread model is the variants' axis, not %s's", a.Name)
		}
		names = append(names, v.Name)
		if err := checkEnv(v.Env, vf+".env"); err != nil {
			return err
		}
	}
	return nil
}

// validateJDKs checks the JDKs a target runs on in turn: majors the
// project builds a JRE for, each once, for a jar or a Dockerfile.
func (o Own) validateJDKs(field string) error {
	f := sub(field, "jdks")
	switch {
	case len(o.JDKs) == 0:
		return nil
	case o.JDK != 0:
		return bench.FieldErrorf(f, "give jdk (one) or jdks (several), not both")
	case o.Image != "":
		return bench.FieldErrorf(f, "is for a jar or a Dockerfile; an image brings its own runtime")
	case len(o.JDKs) < 2:
		return bench.FieldErrorf(f, "several JDKs are an axis; give one as jdk")
	}
	for i, major := range o.JDKs {
		if !slices.Contains(javaVariant.Values, strconv.Itoa(major)) {
			return bench.FieldErrorf(f, "this host builds JREs for Java %s only, got %d", strings.Join(javaVariant.Values, " and "), major)
		}
		if slices.Index(o.JDKs, major) < i {
			return bench.FieldErrorf(f, "Java %d is listed twice", major)
		}
	}
	return nil
}

// axes returns the definition's axes, in the order a variant's name
// writes them: its variants (or Spring Boot's two for a jar), its JDKs,
// then its named axes. A target with none has no variants.
func (o Own) axes() []Variant {
	var axes []Variant
	if variants := o.variants(); len(variants) > 0 {
		names := slices.SortedFunc(maps.Keys(variants), func(a, b string) int {
			return strings.Compare(variantOrder(a), variantOrder(b))
		})
		axes = append(axes, Variant{Name: bench.VariantOwn, Values: names, Default: names[0]})
	}
	if len(o.JDKs) > 0 {
		jdks := make([]string, len(o.JDKs))
		for i, j := range o.JDKs {
			jdks[i] = strconv.Itoa(j)
		}
		axes = append(axes, Variant{Name: bench.AxisJDK, Values: jdks, Default: jdks[0]})
	}
	if builds := o.builds(); len(o.Jars) > 0 {
		axes = append(axes, Variant{Name: bench.AxisBuild, Values: builds, Default: builds[0]})
	}
	for _, a := range o.Axes {
		names := make([]string, len(a.Values))
		for i, v := range a.Values {
			names[i] = v.Name
		}
		axes = append(axes, Variant{Name: a.Name, Values: names, Default: names[0]})
	}
	return axes
}

// variants are the definition's named variants: its own, or a jar's
// Spring Boot thread models.
func (o Own) variants() map[string]OwnVariant {
	if len(o.Variants) == 0 && o.jar() != "" {
		return SpringVariants()
	}
	return o.Variants
}

// variations returns the entry's variant dimension, every combination of
// the axes' values, and what each changes when it starts: the variant's
// thread model, environment and flags, then each named axis's value's,
// and the JDK it is built on.
func (o Own) variations(axes []Variant) (Variant, map[string]Variation) {
	return productVariations(bench.VariantOwn, axes, o.variation)
}

// productVariations is a variant dimension called name with a variant
// per combination of the axes' values (the first axis varying slowest,
// the first combination the default), each variant's Variation made by
// each from its values.
func productVariations(name string, axes []Variant, each func(values map[string]string) Variation) (Variant, map[string]Variation) {
	info := bench.TargetInfo{Axes: benchAxes(axes)}
	out := map[string]Variation{}
	var names []string
	for _, values := range product(axes) {
		variant := info.VariantName(values)
		names = append(names, variant)
		out[variant] = each(values)
	}
	return Variant{Name: name, Values: names, Default: names[0]}, out
}

// variation is what one combination of axis values changes.
func (o Own) variation(values map[string]string) Variation {
	vr := Variation{Env: map[string]string{}, Axes: values}
	if name, ok := values[bench.VariantOwn]; ok {
		v := o.variants()[name]
		vr.ThreadModel = v.ThreadModel
		if vr.ThreadModel == "" {
			vr.ThreadModel = modelOfVariant(name, v.Env)
		}
		maps.Copy(vr.Env, v.Env)
		vr.JVMFlags = slices.Clone(v.JVMFlags)
	}
	if vr.ThreadModel == bench.ThreadModelVirtual {
		vr.Threads = actuatorVirtualThreads
	}
	if major, err := strconv.Atoi(values[bench.AxisJDK]); err == nil {
		vr.JDK = major
	}
	if i := slices.Index(o.builds(), values[bench.AxisBuild]); i >= 0 && len(o.Jars) > 0 {
		vr.Recipe = JarFile{Path: absPath(o.Jars[i]), JDK: o.major()}
	}
	for _, a := range o.Axes {
		i := slices.IndexFunc(a.Values, func(v OwnAxisValue) bool { return v.Name == values[a.Name] })
		if i >= 0 {
			maps.Copy(vr.Env, a.Values[i].Env)
			vr.JVMFlags = append(vr.JVMFlags, a.Values[i].JVMFlags...)
		}
	}
	return vr
}

// product lists every combination of the axes' values, the first axis
// varying slowest.
func product(axes []Variant) []map[string]string {
	combos := []map[string]string{{}}
	for _, a := range axes {
		var next []map[string]string
		for _, c := range combos {
			for _, v := range a.Values {
				m := maps.Clone(c)
				m[a.Name] = v
				next = append(next, m)
			}
		}
		combos = next
	}
	return combos
}

// benchAxes describes axes in the domain's words.
func benchAxes(axes []Variant) []bench.Axis {
	out := make([]bench.Axis, len(axes))
	for i, a := range axes {
		out[i] = bench.Axis{Name: a.Name, Values: slices.Clone(a.Values), Default: a.Default}
	}
	return out
}

// MaxBuilds bounds the builds of one service a run compares (Own.Jars):
// each is a variant of every other axis's values, and every variant runs
// in each round.
const MaxBuilds = 4

// notBuildChars are what a jar's file name may hold that a build's name
// may not.
var notBuildChars = regexp.MustCompile(`[^a-z0-9._-]+`)

// BuildName names the build a jar is on the build axis: its file name
// without .jar, lower-cased, other characters than letters, digits, '.',
// '_' and '-' made '-' (target/orders-slower.jar: orders-slower).
func BuildName(jar string) string {
	base := strings.TrimSuffix(filepath.Base(jar), ".jar")
	return strings.Trim(notBuildChars.ReplaceAllString(strings.ToLower(base), "-"), "-._")
}

// jar is the jar the target runs by default: its one, or the first of
// several builds; "" for an image or a Dockerfile.
func (o Own) jar() string {
	if len(o.Jars) > 0 {
		return o.Jars[0]
	}
	return o.Jar
}

// builds names the builds of Jars, in their order.
func (o Own) builds() []string {
	names := make([]string, len(o.Jars))
	for i, jar := range o.Jars {
		names[i] = BuildName(jar)
	}
	return names
}

// ValidateBuilds checks several builds of one service, the jars a
// configuration's jars or the CLI's --jar given more than once name; field
// is their path in messages. Two to MaxBuilds jar files, each there, no
// two of one name.
func ValidateBuilds(field string, jars []string) error {
	switch {
	case len(jars) < 2:
		return bench.FieldErrorf(field, "several builds are an axis; give one as jar")
	case len(jars) > MaxBuilds:
		return bench.FieldErrorf(field, "at most %d builds of one service run side by side, got %d", MaxBuilds, len(jars))
	}
	names := Own{Jars: jars}.builds()
	for i, jar := range jars {
		if err := checkJarFile(field, jar); err != nil {
			return err
		}
		if !ownName.MatchString(names[i]) {
			return bench.FieldErrorf(field, "%s names no build (its file name without .jar is the build's name); rename it", jar)
		}
		if j := slices.Index(names, names[i]); j < i {
			return bench.FieldErrorf(field, "%s and %s are both build %q (a build is named by its file name without .jar); rename one", jars[j], jar, names[i])
		}
	}
	return nil
}

// checkJarFile checks that a jar file is there.
func checkJarFile(field, jar string) error {
	st, err := os.Stat(jar)
	if err != nil || st.IsDir() {
		return bench.FieldErrorf(field, "no jar file at %s", jar)
	}
	return nil
}

package bench_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// ordersMatrix is a service of one's own along three axes: its thread
// models, two JDKs and two Tomcat pools, eight variants.
func ordersMatrix() bench.TargetInfo {
	axes := []bench.Axis{
		{Name: bench.VariantOwn, Values: []string{"platform", "virtual"}, Default: "platform"},
		{Name: bench.AxisJDK, Values: []string{"21", "25"}, Default: "21"},
		{Name: "pool", Values: []string{"t200", "t400"}, Default: "t200"},
	}
	info := bench.TargetInfo{Name: "orders", Kind: "java", Variant: bench.VariantOwn, Axes: axes, Own: true}
	for _, m := range axes[0].Values {
		for _, j := range axes[1].Values {
			for _, p := range axes[2].Values {
				info.Variants = append(info.Variants, m+",jdk="+j+",pool="+p)
			}
		}
	}
	info.DefaultVariant = info.Variants[0]
	return info
}

func TestParseVariant(t *testing.T) {
	info := ordersMatrix()
	for _, tt := range []struct {
		variant string
		want    map[string]string
		err     string // "" when valid
	}{
		{"", map[string]string{}, ""},
		{"virtual", map[string]string{"variant": "virtual"}, ""},
		// the first axis bare or by name, any order
		{"virtual,jdk=21", map[string]string{"variant": "virtual", "jdk": "21"}, ""},
		{"jdk=21,variant=virtual", map[string]string{"variant": "virtual", "jdk": "21"}, ""},
		{"pool=t400,virtual", map[string]string{"variant": "virtual", "pool": "t400"}, ""},
		{"virtual,jdk=17", nil, `targets[0]: target orders has no jdk "17" (jdk: 21, 25)`},
		{"turbo", nil, `targets[0]: target orders has no variant "turbo" (variant: platform, virtual)`},
		{"virtual,gc=z", nil, `targets[0]: target orders has no axis "gc" (axes: variant, jdk, pool)`},
		{"virtual,21", nil, `targets[0]: target orders: "virtual" and "21" are both its variant; name the other axes (jdk=21)`},
		{"jdk=21,jdk=25", nil, `targets[0]: target orders: its jdk is given twice`},
	} {
		got, err := info.ParseVariant(tt.variant, "targets[0]")
		switch {
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("%q: error %v, want %s", tt.variant, err, tt.err)
		case tt.err == "" && (err != nil || !maps.Equal(got, tt.want)):
			t.Errorf("%q = %v, %v; want %v", tt.variant, got, err, tt.want)
		}
	}
}

func TestVariantNameAndMatching(t *testing.T) {
	info := ordersMatrix()
	values := map[string]string{"jdk": "25", "variant": "virtual", "pool": "t200"}
	if got, want := info.VariantName(values), "virtual,jdk=25,pool=t200"; got != want {
		t.Errorf("VariantName = %q, want %q", got, want)
	}
	if got, want := info.Matching(map[string]string{"jdk": "21", "pool": "t400"}), []string{"platform,jdk=21,pool=t400", "virtual,jdk=21,pool=t400"}; !slices.Equal(got, want) {
		t.Errorf("Matching = %v, want %v", got, want)
	}
	if got := info.Matching(nil); len(got) != 8 {
		t.Errorf("Matching(nothing) = %v, want all 8", got)
	}
	infos := []bench.TargetInfo{info}
	if got, want := bench.CanonicalRef(infos, "orders@jdk=25", 0), "orders@platform,jdk=25,pool=t200"; got != want {
		t.Errorf("CanonicalRef = %q, want %q (defaults filled)", got, want)
	}
	if got, want := bench.CanonicalRef(infos, "orders@virtual", 25), "orders@virtual,jdk=25,pool=t200"; got != want {
		t.Errorf("CanonicalRef with the run's JDK = %q, want %q", got, want)
	}
}

// axesSpec is a valid spec of targets on a run-wide JDK, its requests by
// uri as a service of one's own takes them.
func axesSpec(targets []string, jdk int) bench.RunSpec {
	spec := validSpec()
	spec.Targets, spec.Java.JDK = targets, jdk
	spec.Workload = bench.Workload{Requests: []bench.Request{{URI: "/api/quote"}}}
	return spec
}

// A spec names a service's variants by the axes it cares about: those it
// leaves out run in each of their values, the JDK the run's when java.jdk
// is given. The built-in Java targets take the same form, written back in
// their short one.
func TestPrepareExpandsAxes(t *testing.T) {
	catalog := testCatalog(bench.DefaultGuardrails)
	catalog.Targets = append(catalog.Targets, ordersMatrix())
	for _, tt := range []struct {
		name    string
		targets []string
		jdk     int
		want    []string
	}{
		{"every variant", []string{"orders"}, 0, ordersMatrix().Variants},
		{"one axis named", []string{"orders@jdk=21,pool=t200"}, 0, []string{"orders@platform,jdk=21,pool=t200", "orders@virtual,jdk=21,pool=t200"}},
		{"the run's JDK", []string{"orders@virtual"}, 25, []string{"orders@virtual,jdk=25,pool=t200", "orders@virtual,jdk=25,pool=t400"}},
		{"the reference's JDK over the run's", []string{"orders@virtual,jdk=21,pool=t400"}, 25, []string{"orders@virtual,jdk=21,pool=t400"}},
		{"overlaps run once", []string{"orders@virtual,pool=t200,jdk=21", "orders@jdk=21,pool=t200"}, 0,
			[]string{"orders@virtual,jdk=21,pool=t200", "orders@platform,jdk=21,pool=t200"}},
		{"a built-in by its axis", []string{"java-virtual@jdk=21", "java-platform@21", "go"}, 0, []string{"java-virtual@21", "java-platform@21", "go"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec := axesSpec(tt.targets, tt.jdk)
			if err := bench.Prepare(&spec, catalog); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, v := range tt.want {
				if !strings.Contains(v, "@") && !strings.HasPrefix(v, "go") {
					v = "orders@" + v
				}
				want = append(want, v)
			}
			if !slices.Equal(spec.Targets, want) {
				t.Errorf("targets = %v, want %v", spec.Targets, want)
			}
		})
	}
}

// Bad axes are refused before anything starts, naming the field.
func TestPrepareBadAxes(t *testing.T) {
	catalog := testCatalog(bench.DefaultGuardrails)
	catalog.Targets = append(catalog.Targets, ordersMatrix())
	for _, tt := range []struct {
		name    string
		targets []string
		jdk     int
		field   string
		message string
	}{
		{"unknown value", []string{"orders@virtual,pool=t800"}, 0, "targets[0]", `target orders has no pool "t800" (pool: t200, t400)`},
		{"a JDK it has not", []string{"go", "orders@jdk=17"}, 0, "targets[1]", `target orders has no jdk "17" (jdk: 21, 25)`},
		{"a run-wide JDK it has not", []string{"orders@virtual"}, 17, "java.jdk", "target orders has no jdk 17 (jdk: 21, 25)"},
		{"unknown axis", []string{"orders@gc=z"}, 0, "targets[0]", `target orders has no axis "gc" (axes: variant, jdk, pool)`},
		{"a built-in's JDK", []string{"java-virtual@jdk=17"}, 0, "targets[0]", `target java-virtual has no jdk "17" (jdk: 25, 21)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec := axesSpec(tt.targets, tt.jdk)
			err := bench.Prepare(&spec, catalog)
			var e *bench.Error
			if !asError(err, &e) || e.Code != bench.EINVALID || e.Field != tt.field || e.Message != tt.message {
				t.Errorf("Prepare = %v, want %s: %s", err, tt.field, tt.message)
			}
		})
	}
}

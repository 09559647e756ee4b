package spec_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/bench/benchtest"
	"github.com/threadbench/threadbench/internal/spec"
)

// axesSpec is a valid spec of targets on a run-wide JDK, its requests by
// uri as a service of one's own takes them.
func axesSpec(targets []string, jdk int) bench.RunSpec {
	rs := validSpec()
	rs.Targets, rs.Java.JDK = targets, jdk
	rs.Workload = bench.Workload{Requests: []bench.Request{{URI: "/api/quote"}}}
	return rs
}

// A spec names a service's variants by the axes it cares about: those it
// leaves out run in each of their values, the JDK the run's when java.jdk
// is given. The built-in Java targets take the same form, written back in
// their short one.
func TestPrepareExpandsAxes(t *testing.T) {
	catalog := testCatalog(bench.DefaultGuardrails)
	catalog.Targets = append(catalog.Targets, benchtest.OrdersMatrix())
	for _, tt := range []struct {
		name    string
		targets []string
		jdk     int
		want    []string
	}{
		{"every variant", []string{"orders"}, 0, benchtest.OrdersMatrix().Variants},
		{"one axis named", []string{"orders@jdk=21,pool=t200"}, 0, []string{"orders@platform,jdk=21,pool=t200", "orders@virtual,jdk=21,pool=t200"}},
		{"the run's JDK", []string{"orders@virtual"}, 25, []string{"orders@virtual,jdk=25,pool=t200", "orders@virtual,jdk=25,pool=t400"}},
		{"the reference's JDK over the run's", []string{"orders@virtual,jdk=21,pool=t400"}, 25, []string{"orders@virtual,jdk=21,pool=t400"}},
		{"overlaps run once", []string{"orders@virtual,pool=t200,jdk=21", "orders@jdk=21,pool=t200"}, 0,
			[]string{"orders@virtual,jdk=21,pool=t200", "orders@platform,jdk=21,pool=t200"}},
		{"a built-in by its axis", []string{"java-virtual@jdk=21", "java-platform@21", "go"}, 0, []string{"java-virtual@21", "java-platform@21", "go"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := axesSpec(tt.targets, tt.jdk)
			if err := spec.Prepare(&rs, catalog); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, v := range tt.want {
				if !strings.Contains(v, "@") && !strings.HasPrefix(v, "go") {
					v = "orders@" + v
				}
				want = append(want, v)
			}
			if !slices.Equal(rs.Targets, want) {
				t.Errorf("targets = %v, want %v", rs.Targets, want)
			}
		})
	}
}

// Bad axes are refused before anything starts, naming the field.
func TestPrepareBadAxes(t *testing.T) {
	catalog := testCatalog(bench.DefaultGuardrails)
	catalog.Targets = append(catalog.Targets, benchtest.OrdersMatrix())
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
			rs := axesSpec(tt.targets, tt.jdk)
			err := spec.Prepare(&rs, catalog)
			var e *bench.Error
			if !asError(err, &e) || e.Code != bench.EINVALID || e.Field != tt.field || e.Message != tt.message {
				t.Errorf("Prepare = %v, want %s: %s", err, tt.field, tt.message)
			}
		})
	}
}

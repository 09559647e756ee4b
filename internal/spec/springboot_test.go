package spec_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/spec"
	"github.com/threadbench/threadbench/internal/targets"
)

// springBootCatalog is the built-in catalog: java-platform and
// java-virtual on Spring Boot 4.1 and 3.5, java-reactive and go on none.
func springBootCatalog() bench.Catalog {
	c := testCatalog(bench.DefaultGuardrails)
	c.Targets = targets.DefaultCatalog().Infos()
	return c
}

// A run's Spring Boot line (java.springBoot, run --spring-boot) is
// written into each reference to a target built on several that names
// none, in the targets and in each case's; a reference that names its
// line keeps it, and targets on one line are left as they are.
func TestPrepareSpringBoot(t *testing.T) {
	for _, tt := range []struct {
		name    string
		targets []string
		line    string
		want    []string
	}{
		{"none asked", []string{"java-virtual", "go"}, "", []string{"java-virtual", "go"}},
		{"the run's line", []string{"java-platform", "java-virtual@21", "go", "java-reactive"}, "3.5",
			[]string{"java-platform@boot=3.5", "java-virtual@21,boot=3.5", "go", "java-reactive"}},
		{"the reference's line over the run's", []string{"java-virtual@boot=4.1", "java-virtual"}, "3.5", []string{"java-virtual@boot=4.1", "java-virtual@boot=3.5"}},
		{"overlaps run once", []string{"java-virtual", "java-virtual@boot=3.5"}, "3.5", []string{"java-virtual@boot=3.5"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := validSpec()
			rs.Targets, rs.Java.SpringBoot = tt.targets, tt.line
			if err := spec.Prepare(&rs, springBootCatalog()); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rs.Targets, tt.want) {
				t.Errorf("targets %v, want %v", rs.Targets, tt.want)
			}
		})
	}
	rs := validSpec()
	rs.Targets = nil
	rs.Java.SpringBoot = "3.5"
	rs.Cases = []bench.Case{{Name: "a", Target: "java-virtual"}, {Name: "b", Target: "java-platform", Java: &bench.JavaOptions{SpringBoot: "4.1"}}, {Name: "c", Target: "go"}}
	if err := spec.Prepare(&rs, springBootCatalog()); err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, cs := range rs.Cases {
		cases = append(cases, cs.Target)
	}
	if want := []string{"java-virtual@boot=3.5", "java-platform@boot=4.1", "go"}; !slices.Equal(cases, want) || !slices.Equal(rs.Targets, want) {
		t.Errorf("cases' targets %v, targets %v; want %v", cases, rs.Targets, want)
	}
}

// A line no target offers, or a run with no target built on several, is
// refused naming java.springBoot (or the case's), and what is offered.
func TestPrepareSpringBootErrors(t *testing.T) {
	for _, tt := range []struct {
		name, field, says string
		change            func(*bench.RunSpec)
	}{
		{"unknown line", "java.springBoot", "java-virtual is built on Spring Boot 4.1 or 3.5, got \"3.2\"", func(rs *bench.RunSpec) { rs.Java.SpringBoot = "3.2" }},
		{"no target on several", "java.springBoot", "no target of the run is built on several Spring Boot lines (go, java-reactive): java-platform and java-virtual are",
			func(rs *bench.RunSpec) { rs.Targets, rs.Java.SpringBoot = []string{"go", "java-reactive"}, "3.5" }},
		{"a case's", "cases[1].java.springBoot", "got \"2.7\"", func(rs *bench.RunSpec) {
			rs.Targets = nil
			rs.Cases = []bench.Case{{Name: "a", Target: "go"}, {Name: "b", Target: "java-virtual", Java: &bench.JavaOptions{SpringBoot: "2.7"}}}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := validSpec()
			tt.change(&rs)
			err := spec.Prepare(&rs, springBootCatalog())
			var e *bench.Error
			if !asError(err, &e) || e.Field != tt.field || !strings.Contains(e.Message, tt.says) {
				t.Errorf("Prepare = %v, want %s saying %q", err, tt.field, tt.says)
			}
		})
	}
}

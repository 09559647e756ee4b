package targets_test

import (
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

func TestLookup(t *testing.T) {
	c := targets.DefaultCatalog()
	t.Run("OK", func(t *testing.T) {
		for _, tc := range []struct {
			ref, name, runtime, threadModel, metricsPath, source string
		}{
			{bench.TargetGo, bench.TargetGo, "go", bench.ThreadModelGoroutines, "/metrics", "targets/go"},
			{bench.TargetJavaPlatform, bench.TargetJavaPlatform, "java", bench.ThreadModelPlatform, "/actuator/prometheus", "targets/java"},
			{bench.TargetJavaVirtual + "@25", bench.TargetJavaVirtual, "java", bench.ThreadModelVirtual, "/actuator/prometheus", "targets/java"},
		} {
			e, err := c.Lookup(tc.ref)
			if err != nil {
				t.Fatalf("Lookup(%q): %v", tc.ref, err)
			}
			info := e.Info()
			for _, f := range []struct{ what, got, want string }{
				{"Name", info.Name, tc.name}, {"Kind", info.Kind, tc.runtime}, {"ThreadModel", info.ThreadModel, tc.threadModel},
				{"MetricsPath", info.MetricsPath, tc.metricsPath}, {"Source", e.Source, tc.source}, {"HealthPath", e.HealthPath, "/health"},
			} {
				if f.got != f.want {
					t.Errorf("%s: %s = %q, want %q", tc.ref, f.what, f.got, f.want)
				}
			}
			if e.Description == "" || e.Repository == "" || len(e.Threads) == 0 || info.Own {
				t.Errorf("%s: entry lacks a description, a repository or thread figures, or calls itself a service of one's own: %+v", tc.ref, e)
			}
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := c.Lookup("rust")
		if got, want := bench.ErrorCode(err), bench.ENOTFOUND; got != want {
			t.Fatalf("code = %q, want %q (err %v)", got, want, err)
		}
		for _, name := range c.Names() {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not list valid name %q", err, name)
			}
		}
	})
}

func TestNames(t *testing.T) {
	c := targets.DefaultCatalog()
	if got, want := strings.Join(c.Names(), ","), "go,java-platform,java-virtual,java-reactive"; got != want {
		t.Fatalf("Names() = %s, want %s", got, want)
	}
	// WebFlux runs when named: a run that names no target compares the three thread models.
	if got, want := strings.Join(c.DefaultNames(), ","), "go,java-platform,java-virtual"; got != want {
		t.Fatalf("DefaultNames() = %s, want %s", got, want)
	}
}

// The Java entries share one image: same source, recipe and repository;
// only their environment (THREAD_MODEL) differs.
func TestJavaEntriesShareTheirImage(t *testing.T) {
	c := targets.DefaultCatalog()
	p, _ := c.Lookup(bench.TargetJavaPlatform)
	v, _ := c.Lookup(bench.TargetJavaVirtual)
	r, _ := c.Lookup(bench.TargetJavaReactive)
	for _, e := range []targets.Entry{v, r} {
		if p.Source != e.Source || p.Repository != e.Repository || p.Recipe != e.Recipe {
			t.Fatalf("java entries differ in how they are built: %+v / %+v", p, e)
		}
	}
	if p.Env["THREAD_MODEL"] != "platform" || v.Env["THREAD_MODEL"] != "virtual" || r.Env["THREAD_MODEL"] != "reactive" {
		t.Fatalf("THREAD_MODEL = %q / %q / %q", p.Env["THREAD_MODEL"], v.Env["THREAD_MODEL"], r.Env["THREAD_MODEL"])
	}
}

// A new target is a catalog entry: With adds it (or replaces one of the
// same name) without touching the catalog it came from.
func TestCatalogWith(t *testing.T) {
	base := targets.DefaultCatalog()
	extra := targets.GoEntry()
	extra.Name, extra.Env = "go-gogc-off", map[string]string{"GOGC": "off"}
	c := base.With(extra)
	if got, want := strings.Join(c.Names(), ","), "go,java-platform,java-virtual,java-reactive,go-gogc-off"; got != want {
		t.Fatalf("Names() = %s, want %s", got, want)
	}
	if _, err := base.Lookup("go-gogc-off"); err == nil {
		t.Fatal("With changed the catalog it was called on")
	}
	if err := bench.CheckTargetRef("go-gogc-off", c.Infos(), "targets[0]"); err != nil {
		t.Fatalf("the spec checks do not know the new entry: %v", err)
	}
	replaced := c.With(targets.Entry{Name: "go", Recipe: targets.GoBinary{}, Description: "replaced"})
	if e, _ := replaced.Lookup("go"); e.Description != "replaced" || len(replaced.Names()) != 5 {
		t.Fatalf("With did not replace the entry of the same name: %+v", replaced.Names())
	}
}

// The built-in catalog is the table stored runs are read by
// (bench.BuiltinTargets): same names, in the same order, with the same
// runtimes and thread models.
func TestDefaultCatalogIsTheBuiltinTable(t *testing.T) {
	infos := targets.DefaultCatalog().Infos()
	if len(infos) != len(bench.BuiltinTargets) {
		t.Fatalf("%d entries, bench.BuiltinTargets has %d", len(infos), len(bench.BuiltinTargets))
	}
	for i, info := range infos {
		got := bench.BuiltinTarget{Name: info.Name, Runtime: info.Kind, ThreadModel: info.ThreadModel}
		if want := bench.BuiltinTargets[i]; got != want {
			t.Errorf("entry %d = %+v, want %+v", i, got, want)
		}
	}
}

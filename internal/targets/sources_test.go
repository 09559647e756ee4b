package targets_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/threadbench/threadbench"
	"github.com/threadbench/threadbench/internal/targets"
)

func embeddedTree(pom string) fstest.MapFS {
	return fstest.MapFS{
		"go.mod":                 {Data: []byte("module github.com/threadbench/threadbench\n")},
		"targets/go/main.go":     {Data: []byte("package main\n")},
		"targets/java/pom.xml":   {Data: []byte(pom)},
		"targets/java/mvnw":      {Data: []byte("#!/bin/sh\n")},
		"targets/java/src/a.txt": {Data: []byte("a")},
	}
}

func TestExtractSources(t *testing.T) {
	cache := t.TempDir()
	dir, err := targets.ExtractSources(embeddedTree("<project/>"), cache)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("Files", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(dir, "targets", "java", "pom.xml"))
		if err != nil || string(b) != "<project/>" {
			t.Fatalf("pom.xml = %q, %v", b, err)
		}
	})
	t.Run("WrapperExecutable", func(t *testing.T) {
		st, err := os.Stat(filepath.Join(dir, "targets", "java", "mvnw"))
		if err != nil || st.Mode()&0o100 == 0 {
			t.Fatalf("mvnw mode = %v, %v; want executable", st.Mode(), err)
		}
	})
	t.Run("Reused", func(t *testing.T) {
		again, err := targets.ExtractSources(embeddedTree("<project/>"), cache)
		if err != nil || again != dir {
			t.Fatalf("second extraction = %s, %v; want %s", again, err, dir)
		}
	})
	t.Run("OtherContentOtherTree", func(t *testing.T) {
		other, err := targets.ExtractSources(embeddedTree("<project>2</project>"), cache)
		if err != nil || other == dir {
			t.Fatalf("extraction of other sources = %s, %v; want a tree apart from %s", other, err, dir)
		}
	})
	t.Run("CutShortRedone", func(t *testing.T) {
		cut := t.TempDir()
		first, err := targets.ExtractSources(embeddedTree("x"), cut)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(first, ".threadbench-sources"))
		os.Remove(filepath.Join(first, "go.mod"))
		again, err := targets.ExtractSources(embeddedTree("x"), cut)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(again, "go.mod")); err != nil {
			t.Fatalf("a tree cut short was reused: %v", err)
		}
	})
}

func TestFindSources(t *testing.T) {
	repo := writeTree(t, map[string]string{
		"go.mod":          "module github.com/threadbench/threadbench\n",
		"internal/x/x.go": "package x\n",
	})
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Run("CheckoutFirst", func(t *testing.T) {
		got, err := targets.FindSources(filepath.Join(repo, "internal", "x"), "", embeddedTree("p"))
		if err != nil || got != repo {
			t.Fatalf("FindSources in a checkout = %s, %v; want %s", got, err, repo)
		}
	})
	t.Run("EmbeddedOutsideACheckout", func(t *testing.T) {
		got, err := targets.FindSources(t.TempDir(), "", embeddedTree("p"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(got, "targets", "java", "pom.xml")); err != nil {
			t.Fatalf("FindSources outside a checkout = %s without the embedded sources: %v", got, err)
		}
	})
	t.Run("ErrOverrideNotARepo", func(t *testing.T) {
		if _, err := targets.FindSources(repo, t.TempDir(), embeddedTree("p")); err == nil {
			t.Fatal("an override that is no checkout fell back to other sources")
		}
	})
	t.Run("ErrNoSources", func(t *testing.T) {
		if _, err := targets.FindSources(t.TempDir(), "", nil); err == nil {
			t.Fatal("found sources with no checkout and nothing embedded")
		}
	})
	t.Run("BinaryCarriesTheTargets", func(t *testing.T) {
		for _, p := range []string{"go.mod", "go.sum", "targets/go/main.go", "targets/java/pom.xml",
			"targets/java/Dockerfile", "targets/java/mvnw", "targets/java/.mvn/wrapper/maven-wrapper.properties"} {
			if _, err := threadbench.TargetSources.Open(p); err != nil {
				t.Errorf("the binary's sources lack %s: %v", p, err)
			}
		}
	})
}

// TestUnbuildable: a host without the go command cannot build the Go
// target, and says why; with it, nothing is listed for it.
func TestUnbuildable(t *testing.T) {
	if got := targets.DefaultCatalog().Unbuildable()["go"]; got != "" {
		t.Errorf("with go on PATH, go is unbuildable: %s", got)
	}
	t.Setenv("PATH", t.TempDir())
	if got := targets.DefaultCatalog().Unbuildable()["go"]; !strings.Contains(got, "the go command is not on PATH") {
		t.Errorf("without go on PATH: %q, want it to say the go command is missing", got)
	}
}

package targets_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/targets"
)

// writeTree creates files (path -> content) under a new temporary root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for path, content := range files {
		writeFile(t, root, path, content)
	}
	return root
}

func writeFile(t *testing.T, root, path, content string) {
	t.Helper()
	full := filepath.Join(root, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustHash(t *testing.T, root string, paths []string, extra ...string) string {
	t.Helper()
	h, err := targets.InputsHash(root, paths, extra...)
	if err != nil {
		t.Fatalf("InputsHash: %v", err)
	}
	return h
}

var baseTree = map[string]string{
	"targets/go/main.go":          "package main\n",
	"targets/go/server/server.go": "package server\n",
	"go.mod":                      "module x\n",
	"other/ignored.txt":           "not an input\n",
}

var goPaths = []string{"targets/go", "go.mod"}

func TestInputsHashStable(t *testing.T) {
	a := mustHash(t, writeTree(t, baseTree), goPaths, "go1.26.8")
	b := mustHash(t, writeTree(t, baseTree), goPaths, "go1.26.8")
	if a != b {
		t.Fatalf("same inputs in two trees hash differently: %s vs %s", a, b)
	}
	if got, want := len(a), 64; got != want {
		t.Fatalf("len(hash) = %d, want %d", got, want)
	}
}

func TestInputsHashIgnoresModTimeAndOtherFiles(t *testing.T) {
	root := writeTree(t, baseTree)
	before := mustHash(t, root, goPaths, "go1.26.8")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(root, "go.mod"), old, old); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "other/new.txt", "outside the inputs")
	if after := mustHash(t, root, goPaths, "go1.26.8"); after != before {
		t.Fatalf("hash changed with mtime or a non-input file: %s -> %s", before, after)
	}
}

func TestInputsHashDetectsChanges(t *testing.T) {
	base := mustHash(t, writeTree(t, baseTree), goPaths, "go1.26.8")
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, root string)
		extra  string
	}{
		{"EditedFile", func(t *testing.T, root string) { writeFile(t, root, "targets/go/main.go", "package main // edited\n") }, "go1.26.8"},
		{"NewFile", func(t *testing.T, root string) { writeFile(t, root, "targets/go/server/new.go", "package server\n") }, "go1.26.8"},
		{"RenamedFile", func(t *testing.T, root string) {
			if err := os.Rename(filepath.Join(root, "targets/go/server/server.go"), filepath.Join(root, "targets/go/server/srv.go")); err != nil {
				t.Fatal(err)
			}
		}, "go1.26.8"},
		{"RemovedFile", func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "targets/go/server/server.go")); err != nil {
				t.Fatal(err)
			}
		}, "go1.26.8"},
		{"EditedGoMod", func(t *testing.T, root string) { writeFile(t, root, "go.mod", "module y\n") }, "go1.26.8"},
		{"OtherToolVersion", func(t *testing.T, root string) {}, "go1.26.9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := writeTree(t, baseTree)
			tc.change(t, root)
			if got := mustHash(t, root, goPaths, tc.extra); got == base {
				t.Fatalf("hash did not change: %s", got)
			}
		})
	}
}

func TestInputsHashErrMissingPath(t *testing.T) {
	root := writeTree(t, baseTree)
	if _, err := targets.InputsHash(root, []string{"targets/java"}); err == nil {
		t.Fatal("InputsHash of a missing path succeeded")
	}
}

func TestFindRepoRoot(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod":            "module github.com/threadbench/threadbench\n\ngo 1.26.0\n",
		"internal/x/x.go":   "package x\n",
		"elsewhere/go.mod":  "module example.com/other\n",
		"elsewhere/a/a.txt": "",
	})
	t.Run("OK", func(t *testing.T) {
		got, err := targets.FindRepoRoot(filepath.Join(root, "internal", "x"), "")
		if err != nil {
			t.Fatal(err)
		}
		if got != root {
			t.Fatalf("FindRepoRoot = %s, want %s", got, root)
		}
	})
	t.Run("Override", func(t *testing.T) {
		got, err := targets.FindRepoRoot("/", root)
		if err != nil || got != root {
			t.Fatalf("FindRepoRoot(override) = %s, %v; want %s", got, err, root)
		}
	})
	t.Run("ErrOtherModule", func(t *testing.T) {
		if _, err := targets.FindRepoRoot("/", filepath.Join(root, "elsewhere")); err == nil {
			t.Fatal("override pointing at another module accepted")
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		other := writeTree(t, map[string]string{"go.mod": "module example.com/other\n", "a/b.txt": ""})
		_, err := targets.FindRepoRoot(filepath.Join(other, "a"), "")
		if err == nil {
			t.Fatal("found a repository root outside the repository")
		}
	})
}

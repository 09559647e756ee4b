package main

import (
	"context"
	"flag"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/reference"
)

var updateReference = flag.Bool("update-reference", false, "rewrite docs/reference from the code (make reference)")

// referenceDir is docs/reference, from this package's directory.
var referenceDir = filepath.Join("..", "..", "docs", "reference")

// newReferenceRoot is the CLI as a user's shell sees it, with no
// environment: what its reference pages describe.
func newReferenceRoot() *cobra.Command {
	g := newGlobalState(context.Background(), nil, io.Discard, io.Discard, func(string) string { return "" })
	return newRootCmd(g)
}

// TestReferenceIsCurrent holds docs/reference to the code: the CLI's
// pages, the API's and the spec's fields generated now must be the files
// committed. -update-reference rewrites them.
func TestReferenceIsCurrent(t *testing.T) {
	files, err := reference.Generate(newReferenceRoot(), api.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if *updateReference {
		if err := reference.Write(referenceDir, files); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %d pages under %s", len(files), referenceDir)
		return
	}
	stale, err := reference.Stale(referenceDir, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) > 0 {
		t.Errorf("docs/reference is stale in %v: run %s and commit it", stale, reference.Regenerate)
	}
}

// TestReferenceStaleOnAChangedFlag: a flag whose help changes makes its
// command's page, and only it, stale; a command's page left over from a
// command that is gone is stale too.
func TestReferenceStaleOnAChangedFlag(t *testing.T) {
	dir := t.TempDir()
	files, err := reference.Generate(newReferenceRoot(), api.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := reference.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	if stale, err := reference.Stale(dir, files); err != nil || len(stale) != 0 {
		t.Fatalf("just written: stale %v, %v; want none", stale, err)
	}

	root := newReferenceRoot()
	run, _, err := root.Find([]string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	run.Flags().Lookup("cpus").Usage += " (changed)"
	changed, err := reference.Generate(root, api.Spec)
	if err != nil {
		t.Fatal(err)
	}
	stale, err := reference.Stale(dir, changed)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"cli/orchestrator_run.md"}; !slices.Equal(stale, want) {
		t.Errorf("after run's --cpus changed: stale %v, want %v", stale, want)
	}

	delete(changed, "cli/orchestrator_run.md")
	if stale, _ := reference.Stale(dir, changed); !slices.Contains(stale, "cli/orchestrator_run.md") {
		t.Errorf("a page without its command: stale %v, want it named", stale)
	}
}

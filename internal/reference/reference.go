// Package reference generates docs/reference from the code, so that the
// reference cannot drift from what it describes: the CLI's pages from
// cobra's own generator, the HTTP API's endpoints from api/openapi.yaml, and
// a spec's fields from the RunSpec schema in it. Stale compares a generated
// set with the files on disk; a test holds docs/reference to it.
package reference

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// Files are generated pages by their path under docs/reference.
type Files map[string][]byte

// Regenerate is the command that rewrites docs/reference, which every page
// names in its first lines.
const Regenerate = "make reference"

// Generate renders every page: the CLI's under cli/, api.md and spec.md.
func Generate(root *cobra.Command, openapi []byte) (Files, error) {
	files, err := CLI(root)
	if err != nil {
		return nil, err
	}
	d, err := parse(openapi)
	if err != nil {
		return nil, err
	}
	files["api.md"] = API(d)
	spec, err := Spec(d)
	if err != nil {
		return nil, err
	}
	files["spec.md"] = spec
	files["README.md"] = index(files)
	return files, nil
}

// CLI renders a page per command with cobra's generator, under cli/, the
// date stamp off so that a page changes only when its command does.
func CLI(root *cobra.Command) (Files, error) {
	root.DisableAutoGenTag = true
	files := Files{}
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c != root {
			return nil
		}
		var b bytes.Buffer
		b.WriteString(generatedBy)
		if err := doc.GenMarkdownCustom(c, &b, func(name string) string { return name }); err != nil {
			return fmt.Errorf("reference of %q: %w", c.CommandPath(), err)
		}
		files["cli/"+pageName(c)] = b.Bytes()
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	return files, walk(root)
}

// generatedBy opens every page.
const generatedBy = "<!-- Generated from the code by `" + Regenerate + "`: do not edit. -->\n\n"

// pageName is the file cobra's links name a command's page by.
func pageName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
}

// index lists the pages.
func index(files Files) []byte {
	var b bytes.Buffer
	b.WriteString(generatedBy)
	b.WriteString("# Reference\n\nGenerated from the code; a test fails when a page here is stale.\n\n")
	b.WriteString("- [The HTTP API](api.md), from `api/openapi.yaml`\n")
	b.WriteString("- [A run spec's fields](spec.md), from its schema in `api/openapi.yaml`\n")
	b.WriteString("- The CLI, from its commands:\n")
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if strings.HasPrefix(name, "cli/") {
			cmd := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(name, "cli/"), ".md"), "_", " ")
			fmt.Fprintf(&b, "  - [`%s`](%s)\n", cmd, name)
		}
	}
	return b.Bytes()
}

// Stale names, sorted, the pages under dir that differ from files, are
// missing, or are left over from a command that is gone.
func Stale(dir string, files Files) ([]string, error) {
	var stale []string
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(got, want) {
			stale = append(stale, name)
		}
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if _, ok := files[filepath.ToSlash(rel)]; err == nil && !ok {
			stale = append(stale, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	slices.Sort(stale)
	return stale, nil
}

// Write replaces dir's pages with files, removing any left over.
func Write(dir string, files Files) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

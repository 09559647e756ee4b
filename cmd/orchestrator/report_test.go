package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

func TestReport(t *testing.T) {
	s, cli := seededCLI(t)
	t.Run("Table", func(t *testing.T) {
		code, stdout, stderr := cli("report", s.base.ID)
		mustOK(t, code, stderr)
		for _, want := range []string{"Report of run " + s.base.ID, "Findings", "whole attack — open, 2 stages", "stage 2 (high)", "throughput and errors", "latency (ms)"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("report lacks %q:\n%s", want, stdout)
			}
		}
	})
	t.Run("Markdown", func(t *testing.T) {
		code, stdout, stderr := cli("report", s.base.ID, "--format", "markdown")
		mustOK(t, code, stderr)
		if !strings.HasPrefix(stdout, "## Report of run "+s.base.ID) || !strings.Contains(stdout, "|---") {
			t.Errorf("not a markdown report:\n%.300s", stdout)
		}
	})
	t.Run("JSON", func(t *testing.T) {
		code, stdout, stderr := cli("report", s.base.ID, "--format", "json", "--threshold", "2")
		mustOK(t, code, stderr)
		var rep bench.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("not a report: %v\n%.300s", err, stdout)
		}
		if rep.Run.ID != s.base.ID || len(rep.Subjects) != 2 || rep.MinEffect != 2 {
			t.Errorf("report of %s with %d subjects and minimum effect %v, want %s, 2 and 2", rep.Run.ID, len(rep.Subjects), rep.MinEffect, s.base.ID)
		}
	})
	t.Run("CSV", func(t *testing.T) {
		code, stdout, stderr := cli("report", s.base.ID, "--format", "csv")
		mustOK(t, code, stderr)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		// Per target: the whole attack and two stages, then 20 seconds.
		if got, want := len(lines), 1+2*(3+20); got != want {
			t.Errorf("%d CSV lines, want %d:\n%s", got, want, stdout)
		}
	})
	t.Run("HTMLToAFile", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "report.html")
		code, stdout, stderr := cli("report", s.base.ID, "--format", "html", "--out", out)
		mustOK(t, code, stderr)
		page, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(page), "<!DOCTYPE html>") || !strings.Contains(string(page), `class="chart"`) {
			t.Errorf("%s is not the HTML report:\n%.300s", out, page)
		}
		if !strings.Contains(stdout, "wrote "+out) {
			t.Errorf("stdout %q does not say where the report went", stdout)
		}
	})
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"ErrFormat", []string{s.base.ID, "--format", "pdf"}, `format: unknown format "pdf" (valid: table, markdown, json, csv, html)`},
		{"ErrThreshold", []string{s.base.ID, "--threshold", "-1"}, "threshold: must not be negative"},
		{"ErrMaxErrors", []string{s.base.ID, "--max-errors", "0"}, "max-errors: must be a percentage above 0 and at most 100, got 0"},
		{"ErrNotFound", []string{"nope"}, `run "nope" not found`},
		{"ErrNoRun", []string{}, "accepts 1 arg(s)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(append([]string{"report"}, tt.args...)...)
			wantBadInput(t, code, stdout, stderr, tt.want)
		})
	}
}

// TestReportHelp checks that the help names the report's formats, with
// their notes, as the registry has them.
func TestReportHelp(t *testing.T) {
	code, stdout, stderr := runContext(t, context.Background(), nil, "report", "--help")
	mustOK(t, code, stderr)
	for _, want := range []string{
		"Formats: table, markdown (pastes into an issue or a PR), json, csv (one row per target x stage x\n" +
			"request and one per target x second), html (one self-contained page with charts).\n",
		`--format string      table, markdown, json, csv, html (default "table")`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, stdout)
		}
	}
}

func TestWrapText(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"one two three", 7, "one two\nthree"},
		{"one  two", 100, "one two"},                  // spaces collapse
		{"a verylongword b", 4, "a\nverylongword\nb"}, // a long word stands alone
		{"", 10, ""},
	}
	for _, tt := range tests {
		if got := wrapText(tt.in, tt.width); got != tt.want {
			t.Errorf("wrapText(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

func TestRunsShowOpensWithTheSummary(t *testing.T) {
	s, cli := seededCLI(t)
	code, stdout, stderr := cli("runs", "show", s.base.ID)
	mustOK(t, code, stderr)
	findings, whole, detail := strings.Index(stdout, "Findings\n"), strings.Index(stdout, "whole attack — "), strings.Index(stdout, "target go: succeeded")
	if findings < 0 || whole < findings || detail < whole {
		t.Errorf("runs show: findings at %d, whole attack at %d, per-target detail at %d; want them in that order:\n%s",
			findings, whole, detail, stdout)
	}
}

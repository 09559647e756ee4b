package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// run executes the CLI in-process and returns its exit code and output.
func run(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	g := newGlobalState(context.Background(), strings.NewReader(""), &out, &errOut, func(k string) string { return env[k] })
	code = execute(g, args)
	return code, out.String(), errOut.String()
}

func TestTargetsList(t *testing.T) {
	code, stdout, stderr := run(t, nil, "targets", "list")
	if code != exitOK {
		t.Fatalf("exit code %d, stderr %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if got, want := len(lines), 5; got != want {
		t.Fatalf("%d lines, want %d (header + 4 targets):\n%s", got, want, stdout)
	}
	for i, want := range [][]string{
		{"NAME", "KIND", "THREAD MODEL", "METRICS", "DESCRIPTION"},
		{"go", "go", "goroutines", "/metrics"},
		{"java-platform", "java", "platform", "/actuator/prometheus"},
		{"java-virtual", "java", "virtual", "/actuator/prometheus"},
		{"java-reactive", "java", "reactive", "/actuator/prometheus", "run when named"},
	} {
		for _, field := range want {
			if !strings.Contains(lines[i], field) {
				t.Errorf("line %d %q lacks %q", i, lines[i], field)
			}
		}
	}
}

func TestTargetsBuild(t *testing.T) {
	t.Run("ErrUnknownName", func(t *testing.T) {
		// Checked before the engine is contacted: this passes with no Docker at all.
		code, stdout, stderr := run(t, nil, "targets", "build", "go", "rust")
		if got, want := code, exitBadInput; got != want {
			t.Fatalf("exit code %d, want %d; stderr %s", got, want, stderr)
		}
		if stdout != "" {
			t.Errorf("stdout %q, want nothing (no target built)", stdout)
		}
		for _, want := range []string{`unknown target "rust"`, "go, java-platform, java-virtual"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr %q lacks %q", stderr, want)
			}
		}
	})
	t.Run("ErrEngineNotConfigured", func(t *testing.T) {
		// Checked before any engine is contacted, too.
		code, stdout, stderr := run(t, nil, "targets", "build", "--engine", "lab", "go")
		if code != exitBadInput || stdout != "" || !strings.Contains(stderr, `engine: unknown engine "lab" (configured: local)`) {
			t.Errorf("exit %d, stdout %q, stderr %q; want %d naming the engine", code, stdout, stderr, exitBadInput)
		}
	})
	t.Run("ErrListTakesNoArgs", func(t *testing.T) {
		if code, _, _ := run(t, nil, "targets", "list", "go"); code != exitBadInput {
			t.Fatalf("exit code %d, want %d", code, exitBadInput)
		}
	})
}

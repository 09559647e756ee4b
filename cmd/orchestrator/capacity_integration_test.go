//go:build integration

package main

import (
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// A real capacity search on the Go target in a container, on a short
// budget, CPU-bound work on its one CPU: the answer is confirmed and
// carried, or the search says the generator was the limit; either way the
// run is an ordinary one in the history, each trial a stage, and its
// report opens with the capacity table.
func TestCapacityAgainstGo(t *testing.T) {
	db := t.TempDir() + "/history.db"
	code, stdout, stderr := runCLI(t, nil, "--db", db, "capacity", "-q", "-o", "json",
		"--targets", "go", "--endpoint", "cpu", "--param", "work=3000", "--slo", "p99<=200ms",
		"--budget", "60s", "--trial", "2s", "--confirm", "4s", "--confirmations", "2", "--settle", "500ms",
		"--start-rate", "20", "--warmup", "2s", "--warmup-rate", "10")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	tr := run.Target("go")
	c := tr.Capacity
	if c == nil || c.Objective != "p99<=200ms" || c.Trials != len(tr.Stages) || c.Trials == 0 {
		t.Fatalf("capacity %+v with %d stages: want every trial stored as a stage", c, len(tr.Stages))
	}
	t.Logf("busy machine: go carries %.1f req/s within %s, stop %s: %s; %d trials in %s", c.Rate, c.Objective, c.Stop, c.Reason, c.Trials, c.Spent)
	for _, st := range tr.Stages {
		if st.Model != bench.ModelOpen || st.Stats.Requests == 0 || !strings.HasSuffix(st.Name, "/s") {
			t.Errorf("stage %+v: want an open-model trial with requests", st)
		}
	}
	switch c.Stop {
	case "generator-bound":
		if !strings.Contains(c.Reason, "load generator is the limit") {
			t.Errorf("reason %q", c.Reason)
		}
	case "precision", "budget":
		checkConfirmed(t, tr, c)
	default:
		t.Errorf("stop %s (%s): want precision, budget or generator-bound", c.Stop, c.Reason)
	}
	code, out, stderr := runCLI(t, nil, "--db", db, "report", run.ID)
	if code != exitOK || !strings.Contains(out, "Capacity within p99<=200ms") {
		t.Errorf("report exit %d lacks the capacity table:\n%s\n%s", code, out, stderr)
	}
}

// checkConfirmed checks a confirmed answer against the stored stages: each
// confirmation met the objective at the answer and carried what it was
// offered, and the rate above it failed.
func checkConfirmed(t *testing.T, tr *bench.TargetResult, c *bench.CapacityResult) {
	t.Helper()
	if c.Rate < 20 || len(c.Confirmations) != 2 {
		t.Fatalf("rate %.1f with %d confirmations, want at least the start rate, confirmed twice", c.Rate, len(c.Confirmations))
	}
	for _, conf := range c.Confirmations {
		st := tr.Stages[conf.Stage]
		if st.Rate != c.Rate || st.Stats.Latency.P99 > 200 || st.Stats.Successes != st.Stats.Requests {
			t.Errorf("confirmation stage %+v does not meet p99<=200ms at %.1f req/s", st, c.Rate)
		}
		if st.Stats.Throughput < 0.9*c.Rate {
			t.Errorf("confirmation served %.1f req/s of %.1f offered", st.Stats.Throughput, c.Rate)
		}
	}
	if c.Failed == nil || c.Failed.Rate <= c.Rate || len(c.Failed.Violations) == 0 {
		t.Errorf("failed %+v, want the next rate up with what failed", c.Failed)
	}
}

//go:build integration

package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
	"github.com/threadbench/threadbench/internal/targets/enginetest"
)

// The flaky network: of the TCP segments that reach the target's network
// namespace, flakyDrop are lost and flakyReset answered with a reset, by
// the kernel (iptables' statistic match; this kernel has no sch_netem for
// tc's delay and loss: a lost segment's retransmission is the delay).
const (
	flakyDrop  = 0.05
	flakyReset = 0.005
)

// TestMeasureFlakyNetwork makes the network into the Go target flaky once
// its attack is under way: the target on a second engine in a network
// namespace of the test's own (enginetest), reached over a veth pair, and
// in that namespace segments lost and connections reset on their way in
// (the engine's own API port spared). The target makes no error (no
// status but 200); the requests that met a reset are counted as what they
// met, not as answers the target gave; the latency shows the
// retransmissions (TCP waits at least 200 ms before one); and the why
// names the network between the generator and the target, not the target,
// whose handlers kept their fraction of a millisecond.
func TestMeasureFlakyNetwork(t *testing.T) {
	alone(t)
	if _, err := exec.LookPath("iptables"); err != nil {
		t.Fatalf("the flaky network needs iptables (Debian: iptables): %v", err)
	}
	eng := enginetest.Start(t)
	config := writeFile(t, "config.yaml", labEngine(eng))
	db := filepath.Join(t.TempDir(), "history.db")
	d := startInProcessDaemon(t, db, "--config", config)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("daemon:\n%s", d.log)
		}
	})
	a := apiClient{t: t, base: d.url}
	spec := openSpec("flaky-network", "8s", 100, false)
	spec["noProfile"], spec["engine"] = true, "lab"
	submitted := a.submit(spec)
	attacking, _ := followInBackground(t, a, submitted.ID)
	select {
	case <-attacking:
	case <-time.After(2 * time.Minute):
		t.Fatalf("run %s never reached its attack", submitted.ID)
	}
	for _, rule := range [][]string{
		{"-A", "INPUT", "-p", "tcp", "!", "--dport", "2376", "-m", "statistic", "--mode", "random", "--probability", fmt.Sprint(flakyReset), "-j", "REJECT", "--reject-with", "tcp-reset"},
		{"-A", "INPUT", "-p", "tcp", "!", "--dport", "2376", "-m", "statistic", "--mode", "random", "--probability", fmt.Sprint(flakyDrop), "-j", "DROP"},
	} {
		args := append([]string{"netns", "exec", eng.Namespace, "iptables"}, rule...)
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	t.Logf("namespace %s loses %.1f %% of the segments coming in and resets %.1f %%, from the attack's start", eng.Namespace, 100*flakyDrop, 100*flakyReset)

	run := a.waitRun(submitted.ID, 2*time.Minute, "finished", func(r *bench.Run) bool { return r.Status.Finished() })
	if run.Status != bench.RunSucceeded {
		t.Fatalf("run %s %s: %s", run.ID, run.Status, run.Error)
	}
	tr := run.Target(bench.TargetGo)
	st := analysis.MeasuredStages(tr)[0]
	s := st.Stats
	t.Logf("%d requests, %d answered, status codes %v, errors %v; latency p50 %.1f ms, p99 %.1f ms, max %.1f ms",
		s.Requests, s.Successes, s.StatusCodes, s.Errors, s.Latency.P50, s.Latency.P99, s.Latency.Max)
	for code := range s.StatusCodes {
		if code != "200" && code != "0" { // 0: no answer came
			t.Errorf("status %s counted: the target made no error, the network did", code)
		}
	}
	if s.Latency.P99 < 200 {
		t.Errorf("p99 %.1f ms: want the retransmissions seen (TCP waits at least 200 ms before one)", s.Latency.P99)
	}
	for _, e := range s.Errors {
		if !strings.Contains(e.Message, "on the way") && !strings.Contains(e.Message, "timeout") {
			t.Errorf("error %q (%d): want it said as what it was, a reset that may have come on the way, or a timeout", e.Message, e.Count)
		}
	}
	why := analysis.WhyStage(tr, st)
	stole := stolen(&st)
	switch {
	case stole && len(why.Causes) > 0 && why.Causes[0].Kind == bench.FlagGeneratorBound:
		// The hypervisor took the machine's CPUs in the stage (steal): the
		// generator lagged with the target, the why says so first, and
		// the network is no longer the only thing between them.
		t.Logf("why %+v in a stage the hypervisor took CPU time from (steal peak %.0f%%): the machine's", why.Causes, 100*st.Generator.StealSharePeak)
	case len(why.Causes) == 0 || why.Causes[0].Kind != bench.VerdictNetworkBound || !strings.Contains(why.Causes[0].Sentence, "on the network between"):
		t.Errorf("why %+v; want network-bound first, on the network between the generator and the target", why.Causes)
	default:
		t.Logf("why: %s", why.Causes[0].Sentence)
	}
	// No verdict from a stage that failed more than a verdict allows.
	rep := analysis.Analyze(run, analysis.ReportOptions{})
	failed := slices.ContainsFunc(rep.Findings, func(f bench.Finding) bool {
		return strings.Contains(f.Text, "go failed") && strings.Contains(f.Text, "no ranking or pair verdict")
	})
	share := analysis.ErrorRate(s) / 100 // the stage's; the report judges its window (its steady part)
	for _, res := range rep.Scopes[len(rep.Scopes)-1].Results {
		if res.Label == bench.TargetGo {
			share = float64(res.Figures.Errors) / float64(max(res.Figures.Requests, 1))
		}
	}
	if failed != (share > bench.DefaultMaxErrors) {
		t.Errorf("%.1f %% of the requests failed, the report says so as past the %.0f %% allowed: %v; findings %+v", 100*share, 100*bench.DefaultMaxErrors, failed, rep.Findings)
	} else {
		t.Logf("%.1f %% failed: past the %.0f %% a verdict allows: %v", 100*share, 100*bench.DefaultMaxErrors, failed)
	}
	t.Logf("history afterwards: %s", historyState(t, db))
	if left := eng.Containers(t, targets.LabelRun+"="+run.ID); len(left) > 0 {
		t.Errorf("containers of run %s left on lab: %v", run.ID, left)
	}
}

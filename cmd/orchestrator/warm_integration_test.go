//go:build integration

package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
)

// c400Profile holds 400 clients for 15 s: on heavy?duration=500,
// java-platform's 200 Tomcat threads bound it at 400 req/s.
const c400Profile = `name: c400
model: closed
stages:
  - {name: c400, duration: 15s, concurrency: 400}
`

// TestWarmStart is issue 34's run: java-platform, 400 clients on
// heavy?duration=500 for 15 s after the default warm-up. The warm-up is
// part of the attack, so the stage starts with its clients already at
// work: its first second is at the pool's bound (it was 7 req/s when the
// stage started cold, the warm-up's requests still holding the threads),
// and the stage's figure is the mean of its seconds.
func TestWarmStart(t *testing.T) {
	alone(t)
	dir := t.TempDir()
	profile := filepath.Join(dir, "c400.yaml")
	if err := os.WriteFile(profile, []byte(c400Profile), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "history.db")
	began := time.Now()
	code, stdout, stderr := runCLI(t, nil, "run", "-q", "-o", "json", "--db", db,
		"--targets", "java-platform", "--profile", profile, "--endpoint", "heavy", "--param", "duration=500")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	tr := run.Target("java-platform")
	ws := warmupOf(t, run, "java-platform")
	t.Logf("run took %v; warm-up %.1f s, steady %v (JIT %s, %s in its last window); per second: %s",
		time.Since(began).Round(time.Second), ws.Seconds, ws.Steady, jitText(ws), msText(ws.JITMsWindow), perSecond(tr))
	bound := float64(bench.DefaultTomcatMaxThreads) / 0.500 // threads ÷ service time
	seconds := fullSecondsOf(tr)
	if len(seconds) < 14 {
		t.Fatalf("%d full seconds measured, want 15", len(seconds))
	}
	if first := seconds[0].Stats.Throughput; first < 0.95*bound || first > 1.01*bound {
		t.Errorf("first measured second %.0f req/s, want the pool's bound %.0f (not a cold start)", first, bound)
	}
	var sum float64
	for _, b := range seconds {
		sum += b.Stats.Throughput
	}
	mean := sum / float64(len(seconds))
	res := analysis.Analyze(run, analysis.ReportOptions{}).Scopes[1].Results[0]
	got := res.Figures.Throughput.Value
	t.Logf("reported %.1f req/s, mean of its seconds %.1f; steady part %+v", got, mean, res.Steady)
	if got < 0.99*mean || got > 1.01*mean {
		t.Errorf("reported %.1f req/s, want the mean of its seconds %.1f within 1 %%", got, mean)
	}
}

func fullSecondsOf(tr *bench.TargetResult) []bench.Bucket {
	var out []bench.Bucket
	for _, b := range tr.Seconds {
		if b.Stats.Elapsed.D() >= 990*time.Millisecond {
			out = append(out, b)
		}
	}
	return out
}

func msText(ms *float64) string {
	if ms == nil {
		return "not read"
	}
	return time.Duration(*ms * float64(time.Millisecond)).Round(time.Millisecond).String()
}

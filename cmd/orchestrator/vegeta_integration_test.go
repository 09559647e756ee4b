//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// vegetaModule is the vegeta the project pins (go.mod): its CLI reads the
// results files a run writes.
const vegetaModule = "github.com/tsenart/vegeta/v12@v12.13.0"

// engineRun runs the Go target under a profile with a load engine, its
// results written in vegeta's gob encoding, and returns the stored run and
// the target's results file.
func engineRun(t *testing.T, engine, profile string, extra ...string) (*bench.Run, string) {
	t.Helper()
	dir := t.TempDir()
	db, results := filepath.Join(dir, "history.db"), filepath.Join(dir, "results.gob")
	args := append([]string{"--db", db, "run", "-q", "-o", "json", "--targets", "go", "--profile", profile,
		"--endpoint", "light", "--warmup", "2s", "--warmup-rate", "500", "--load-engine", engine, "--results", results}, extra...)
	code, stdout, stderr := runCLI(t, nil, args...)
	if code != exitOK {
		t.Fatalf("%s: exit %d\nstderr:\n%s", engine, code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	file := filepath.Join(dir, "results.go.gob")
	if !strings.Contains(stderr, "results of go: "+file) {
		t.Errorf("stderr does not say where the results went:\n%s", stderr)
	}
	return run, file
}

// The same open profile (2,000 req/s, then a ramp to 4,000) against the Go
// target with each engine: both within 2 % of the offered rate, neither
// flagged but for a send schedule that slipped (the generator's own
// timing, which depends on the CPU) or a window the machine's hypervisor
// disturbed (steal), latencies of the same order; each stage says which
// engine sent it. A run the hypervisor disturbed is made again, twice at
// most: a clean clone's own engine, 36-42 % of its CPU time stolen, read a
// median of 17.42 ms against vegeta's 0.66 ms in a window 13 % stolen.
// Medians are compared only between undisturbed runs.
func TestMeasureVegetaEngineMatchesOwn(t *testing.T) {
	alone(t)
	medians := map[string]float64{}
	disturbed := false
	for _, engine := range bench.LoadEngines {
		var run *bench.Run
		for attempt := 1; ; attempt++ {
			run, _ = engineRun(t, engine, "testdata/profile/open-2000-4000.yaml")
			if !stolenStage(run.Target("go")) || attempt == 3 {
				break
			}
			t.Logf("%s: attempt %d disturbed by the hypervisor: made again", engine, attempt)
		}
		tr := run.Target("go")
		disturbed = disturbed || stolenStage(tr)
		for i, st := range tr.Stages {
			planned := run.Spec.Profile.Stages[i]
			offered := planned.Rate
			if planned.Ramp {
				offered = (run.Spec.Profile.Stages[i-1].Rate + planned.Rate) / 2
			}
			t.Logf("%s %s: %d requests, %.0f req/s offered, throughput %.0f, p50 %.2f ms, p99 %.2f ms, generator CPU %.0f%%, send lag p99 %.2f ms",
				engine, st.Name, st.Stats.Requests, st.Stats.OfferedRate, st.Stats.Throughput, st.Stats.Latency.P50, st.Stats.Latency.P99,
				st.Generator.CPUShare*100, st.Generator.SendLagP99)
			if got := st.Stats.Throughput; math.Abs(got-offered)/offered > 0.02 {
				t.Errorf("%s %s: throughput %.0f req/s, want %.0f within 2%%", engine, st.Name, got, offered)
			}
			stole := stolen(&st)
			for _, f := range st.Flags {
				// A machine whose hypervisor took its CPUs meanwhile
				// (steal: 9-30 % a second on this 2-vCPU Intel Xeon at
				// times, none idle) stalls the generator and the target
				// alike: the window is flagged disturbed, and the lags it
				// caused are said, not failed.
				if stole {
					t.Logf("%s %s: flagged %s (%s) in a window the hypervisor took CPU time from", engine, st.Name, f.Kind, f.Reason)
					continue
				}
				// A generator whose send schedule slipped is flagged, as it
				// must be: on a 2-vCPU Intel Xeon vegeta's send lag p99 at
				// 3,000 req/s was 7.1 ms, past the 5 ms limit, while it
				// still delivered the offered rate. Said, not failed; any
				// other flag fails.
				if f.Kind == bench.FlagGeneratorBound && strings.Contains(f.Reason, "send lag") && st.Generator.SendLagP99 > 0 {
					t.Logf("%s %s: flagged %s (%s): the generator's timing, the rate delivered", engine, st.Name, f.Kind, f.Reason)
					continue
				}
				// A generator that stalled (its send lag past the 5 ms
				// limit) sends the requests it held back at once, and
				// they wait for a connection: a clean clone's own engine
				// at 3,000 req/s, send lag p99 13.8 ms, waited 9.9 ms
				// (p99) with all 20 connections at the target. The
				// stall's, said, not failed.
				if f.Kind == bench.FlagConnectionBound && st.Generator.SendLagP99 > 5 {
					t.Logf("%s %s: flagged %s (%s) after the generator stalled (send lag p99 %.1f ms)", engine, st.Name, f.Kind, f.Reason, st.Generator.SendLagP99)
					continue
				}
				t.Errorf("%s %s: flagged %+v", engine, st.Name, f)
			}
			wantEngine := engine
			if engine == bench.LoadEngineOwn {
				wantEngine = ""
			}
			if st.Generator.Engine != wantEngine {
				t.Errorf("%s %s: generator engine %q stored", engine, st.Name, st.Generator.Engine)
			}
		}
		medians[engine] = tr.Total.Latency.P50
	}
	own, veg := medians[bench.LoadEngineOwn], medians[bench.LoadEngineVegeta]
	if disturbed {
		t.Logf("median latency: vegeta %.2f ms, own %.2f ms, not compared: the hypervisor disturbed three attempts", veg, own)
		return
	}
	if ratio := veg / own; ratio > 10 || ratio < 0.1 {
		t.Errorf("median latency: vegeta %.2f ms, own %.2f ms: not of the same order", veg, own)
	}
}

// stolen says whether the hypervisor took a stage's CPU time past the
// steal bound (the generator's own Stolen); stolenStage, whether it took
// any of a target's stages'.
func stolen(st *bench.StageResult) bool {
	return st.Generator != nil && st.Generator.Stolen() != ""
}

func stolenStage(tr *bench.TargetResult) bool {
	for i := range tr.Stages {
		if stolen(&tr.Stages[i]) {
			return true
		}
	}
	return false
}

// The real vegeta CLI, built from the pinned module, reads the results
// file of a real run of each engine: `vegeta report` and `vegeta report
// -type=json` count the requests the run stored, with its success ratio.
func TestVegetaReportReadsResults(t *testing.T) {
	sideBySide(t)
	vegeta := buildVegeta(t)
	for _, engine := range bench.LoadEngines {
		run, file := engineRun(t, engine, "smoke", "--scale", "0.3")
		total := run.Target("go").Total
		wantSuccess := float64(total.Successes) / float64(total.Requests)

		var m struct {
			Requests int64   `json:"requests"`
			Success  float64 `json:"success"`
		}
		if err := json.Unmarshal(vegetaOutput(t, vegeta, "report", "-type=json", file), &m); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: vegeta report -type=json: %d requests, success %v; stored %d, %v", engine, m.Requests, m.Success, total.Requests, wantSuccess)
		if m.Requests != total.Requests || m.Success != wantSuccess {
			t.Errorf("%s: vegeta report -type=json: %d requests, success %v; the run stored %d, %v", engine, m.Requests, m.Success, total.Requests, wantSuccess)
		}
		text := string(vegetaOutput(t, vegeta, "report", file))
		if got := reportField(t, text, `Requests\s+\[total, rate, throughput\]\s+(\d+),`); got != strconv.FormatInt(total.Requests, 10) {
			t.Errorf("%s: vegeta report says %s requests, the run stored %d\n%s", engine, got, total.Requests, text)
		}
		if got, want := reportField(t, text, `Success\s+\[ratio\]\s+([0-9.]+)%`), fmt.Sprintf("%.2f", wantSuccess*100); got != want {
			t.Errorf("%s: vegeta report says %s%% success, the run stored %s%%\n%s", engine, got, want, text)
		}
		if total.Requests == 0 {
			t.Errorf("%s: nothing measured", engine)
		}
	}
}

// buildVegeta installs the pinned vegeta CLI into a temporary directory.
func buildVegeta(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("go", "install", vegetaModule)
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s: %v\n%s", vegetaModule, err, out)
	}
	return filepath.Join(bin, "vegeta")
}

func vegetaOutput(t *testing.T, vegeta string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(vegeta, args...).Output()
	if err != nil {
		t.Fatalf("vegeta %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func reportField(t *testing.T, text, pattern string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("vegeta report has no %s:\n%s", pattern, text)
	}
	return m[1]
}

// At a rate vegeta's attacker cannot send from one CPU, the vegeta stage
// is flagged generator-bound while our engine's is not: the self-watch
// applies to either engine. The rate is half of what the target and our
// engine carry closed on this machine, measured first (64 clients for
// 3 s): make bench puts vegeta's open ceiling at 0.16 to 0.36 of that
// closed rate and ours at 0.8 to 0.99 on the two CPUs seen, so half sits
// between the two on either.
func TestMeasureVegetaGeneratorBound(t *testing.T) {
	alone(t)
	calibration, _ := engineRun(t, bench.LoadEngineOwn, writeFile(t, "closed-64.yaml",
		"name: closed-64\nmodel: closed\nstages:\n  - {name: c64, duration: 3s, concurrency: 64}\n"))
	closed := calibration.Target("go").Stages[0].Stats.Throughput
	rate := math.Round(closed / 2)
	t.Logf("closed, 64 clients: %.0f req/s; both engines asked for %.0f req/s open", closed, rate)
	if rate < 1000 {
		t.Fatalf("the target and our engine carried %.0f req/s closed: too little to tell the engines apart", closed)
	}
	profile := writeFile(t, "open-half.yaml", fmt.Sprintf("name: open-half\nmodel: open\nstages:\n  - {name: hold, duration: 5s, rate: %.0f}\n", rate))
	config := writeFile(t, "maxrate.yaml", fmt.Sprintf("guardrails:\n  maxRate: %.0f\n", 2*rate))
	flagged := map[string]bool{}
	for _, engine := range bench.LoadEngines {
		run, _ := engineRun(t, engine, profile, "--config", config)
		if !run.Environment.CPUSplitApplied {
			t.Fatal("the generator is not pinned to CPUs of its own here (one CPU?): it has no CPU of its own to saturate")
		}
		st := run.Target("go").Stages[0]
		t.Logf("%s: %d requests, throughput %.0f, generator CPU %.0f%% (peak %.0f%%) of %d, send lag p99 %.2f ms, flags %+v",
			engine, st.Stats.Requests, st.Stats.Throughput, st.Generator.CPUShare*100, st.Generator.CPUSharePeak*100, st.Generator.CPUs, st.Generator.SendLagP99, st.Flags)
		for _, f := range st.Flags {
			flagged[engine] = flagged[engine] || f.Kind == bench.FlagGeneratorBound
		}
		// A window the hypervisor took the CPUs from (steal) stalls any
		// engine: our engine's scheduling lag of 7.3 ms in a clean clone
		// came with 7 % stolen, 16 % in a second. Its flags are then the
		// machine's, said and not failed, as in the test above.
		if engine == bench.LoadEngineOwn && flagged[engine] && stolen(&st) {
			t.Logf("%s: flagged generator-bound in a window the hypervisor took CPU time from (steal peak %.0f%%): the machine's, not the engine's", engine, 100*st.Generator.StealSharePeak)
			flagged[engine] = false
		}
	}
	if !flagged[bench.LoadEngineVegeta] {
		t.Error("vegeta's stage is not flagged generator-bound")
	}
	if flagged[bench.LoadEngineOwn] {
		t.Error("our engine's stage is flagged generator-bound at the same rate")
	}
}

package analysis_test

import (
	"math"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
)

// recordedRun is a crafted run of java-virtual and java-platform (in that
// order) that recorded inside both, each keeping its stage's samples
// folded; java-virtual's stage was pinned.
func recordedRun(t *testing.T) *bench.Run {
	r := analysistest.CraftedRun(t, 100, heavy500,
		analysistest.Crafted{Target: bench.TargetJavaVirtual, Settings: map[string]string{"threadModel": "virtual"}, PerSecond: analysistest.Around(190, 10), Low: 500, High: 520},
		analysistest.Crafted{Target: bench.TargetJavaPlatform, Settings: map[string]string{"threadModel": "platform"}, PerSecond: analysistest.Around(195, 10), Low: 500, High: 520})
	zero := 0
	for i := range r.Targets {
		tr := &r.Targets[i]
		tr.Inside = &bench.Inside{Source: bench.ProfileJFR, JDK: 21,
			Why:   []bench.Diagnosis{{Target: tr.Key(), Stage: 0, Source: bench.ProfileJFR, JDK: 21}},
			Files: []bench.Artifact{{Target: tr.Key(), Kind: bench.ArtifactJFR, Bytes: 10}, {Target: tr.Key(), Stage: &zero, Kind: bench.ArtifactFolded, Bytes: 10}}}
	}
	r.Targets[0].Inside.Why[0].Causes = []bench.Cause{{Kind: bench.VerdictPinned, Share: 0.8,
		Sentence: "java-virtual on JDK 21: its carriers spent 80 % of the stage pinned (400 pins, 8.00 s in all), 100 % of it in com.example.Legacy.call:12",
		Stacks:   []bench.StackCount{{Frames: []string{"com.example.Legacy.call:12"}, Count: 400, Seconds: 8, Share: 1}}}}
	return r
}

// The why of each subject is the run's own diagnosis of the stage that
// matters, said in a finding; the flame graphs put platform threads first,
// virtual threads beside them, whatever the run's order.
func TestWhy(t *testing.T) {
	rep := analysis.Analyze(recordedRun(t), analysis.ReportOptions{})
	w := rep.Why
	if w == nil || len(w.Targets) != 2 {
		t.Fatalf("why %+v, want two targets", w)
	}
	virtual := w.Targets[0]
	if virtual.Matters != 0 || virtual.Source != bench.ProfileJFR || !strings.Contains(virtual.Finding, "carriers spent 80 % of the stage pinned") {
		t.Errorf("java-virtual: %+v", virtual)
	}
	hasFinding(t, rep, "In stage 1 (c100), java-virtual on JDK 21: its carriers spent 80 %", "com.example.Legacy.call:12")
	if len(w.Flames) != 2 || w.Flames[0].Label != bench.TargetJavaPlatform || w.Flames[1].Label != bench.TargetJavaVirtual {
		t.Errorf("flames %+v, want java-platform's then java-virtual's", w.Flames)
	}
	if got := analysis.Flames(recordedRun(t)); len(got) != 2 || got[0] != w.Flames[0] || got[1] != w.Flames[1] {
		t.Errorf("Flames() = %+v, want the report's %+v", got, w.Flames)
	}
}

// A subject recorded inside whose stage kept no CPU sample has no flame
// graph, and the why says so and why; the others keep theirs.
func TestWhyUnsampled(t *testing.T) {
	r := recordedRun(t)
	platform := r.Targets[1].Inside
	platform.Files = platform.Files[:1] // its recording, no folded samples
	w := analysis.Analyze(r, analysis.ReportOptions{}).Why
	if len(w.Flames) != 1 || w.Flames[0].Label != bench.TargetJavaVirtual {
		t.Errorf("flames %+v, want java-virtual's alone", w.Flames)
	}
	if len(w.Unsampled) != 1 || !strings.HasPrefix(w.Unsampled[0], "java-platform, stage 1: no flame graph, as no CPU sample was taken") {
		t.Errorf("unsampled %q, want java-platform's sentence", w.Unsampled)
	}
	if got := analysis.Analyze(recordedRun(t), analysis.ReportOptions{}).Why.Unsampled; len(got) != 0 {
		t.Errorf("unsampled %q where every subject kept samples", got)
	}
	platform.Why[0].Source, platform.Why[0].NoProfile = "", "the recording could not be read"
	if got := analysis.Analyze(r, analysis.ReportOptions{}).Why.Unsampled; len(got) != 0 {
		t.Errorf("unsampled %q for a stage nothing recorded: its no-profile reason says why", got)
	}
}

// A run stored before threadbench recorded has its why from the figures
// around each target, and says it has no recording.
func TestWhyBeforeRecording(t *testing.T) {
	r := recordedRun(t)
	for i := range r.Targets {
		r.Targets[i].Inside = nil
	}
	w := analysis.Analyze(r, analysis.ReportOptions{}).Why
	if w == nil || len(w.Targets) != 2 {
		t.Fatalf("why %+v", w)
	}
	for _, wt := range w.Targets {
		if wt.Source != "" || !strings.Contains(wt.NoProfile, "before threadbench recorded") || len(wt.Stages) != 1 {
			t.Errorf("%s: %+v", wt.Label, wt)
		}
	}
	if len(w.Flames) != 0 {
		t.Errorf("flames %+v from a run that kept none", w.Flames)
	}
}

// The same target with recording and without, in one run, is what
// recording cost: their throughput side by side.
func TestWhyOverhead(t *testing.T) {
	r := analysistest.CraftedRun(t, 100, heavy500,
		analysistest.Crafted{Target: bench.TargetJavaVirtual, PerSecond: analysistest.Around(180, 10), Low: 500, High: 520},
		analysistest.Crafted{Target: bench.TargetJavaVirtual, PerSecond: analysistest.Around(200, 10), Low: 500, High: 520})
	off := true
	r.Spec.Cases = []bench.Case{{Name: "recorded", Target: bench.TargetJavaVirtual}, {Name: "not-recorded", Target: bench.TargetJavaVirtual, NoProfile: &off}}
	r.Targets[0].Case, r.Targets[0].Inside = "recorded", &bench.Inside{Source: bench.ProfileJFR}
	r.Targets[1].Case, r.Targets[1].Inside = "not-recorded", &bench.Inside{Off: true, NoProfile: "recording was turned off (noProfile)"}
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	if len(rep.Why.Overhead) != 1 {
		t.Fatalf("overhead %+v, want one pair", rep.Why.Overhead)
	}
	o := rep.Why.Overhead[0]
	if o.Recorded != "recorded" || o.Unrecorded != "not-recorded" || math.Abs(o.Change-(-10)) > 1 {
		t.Errorf("overhead %+v, want recorded vs not-recorded, about -10 %%", o)
	}
	hasFinding(t, rep, "Recording (jfr) cost java-virtual", "with it (recorded)", "without (not-recorded)")
	// Under other settings (another workload) the two are not the same
	// target with and without recording.
	r.Spec.Cases[1].Workload = &bench.Workload{Requests: []bench.Request{{Endpoint: "cpu", Weight: 1}}}
	if got := analysis.Analyze(r, analysis.ReportOptions{}).Why.Overhead; len(got) != 0 {
		t.Errorf("overhead %+v across different workloads", got)
	}
}

// The same target recorded with the thread sampler and without, in one
// run, sets what the dumps cost.
func TestWhyDumpsOverhead(t *testing.T) {
	r := analysistest.CraftedRun(t, 100, heavy500,
		analysistest.Crafted{Target: bench.TargetJavaVirtual, PerSecond: analysistest.Around(196, 10), Low: 500, High: 520},
		analysistest.Crafted{Target: bench.TargetJavaVirtual, PerSecond: analysistest.Around(200, 10), Low: 500, High: 520})
	off := true
	r.Spec.Cases = []bench.Case{{Name: "dumps", Target: bench.TargetJavaVirtual}, {Name: "no-dumps", Target: bench.TargetJavaVirtual, NoThreadSamples: &off}}
	r.Targets[0].Case, r.Targets[0].Inside = "dumps", &bench.Inside{Source: bench.ProfileJFR, Cost: &bench.InsideCost{ThreadDumps: 60, DumpMs: 12, DumpPeriodMs: 1000, DumpShare: 0.012}}
	r.Targets[1].Case, r.Targets[1].Inside = "no-dumps", &bench.Inside{Source: bench.ProfileJFR, ThreadSamplesOff: true}
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	if len(rep.Why.Overhead) != 1 {
		t.Fatalf("overhead %+v, want one pair", rep.Why.Overhead)
	}
	if o := rep.Why.Overhead[0]; o.Source != analysis.SourceThreadDumps || o.Recorded != "dumps" || o.Unrecorded != "no-dumps" || math.Abs(o.Change-(-2)) > 1 {
		t.Errorf("overhead %+v, want dumps vs no-dumps, about -2 %%", o)
	}
	hasFinding(t, rep, "Thread dumps cost java-virtual", "60 dumps, 12.0 ms each (1.2 % of a CPU)")
}

// A capacity search's why is given at its first failing rate beside its
// last passing one, and its flame graph is of the failing trial.
func TestWhyCapacity(t *testing.T) {
	r := recordedRun(t)
	tr := &r.Targets[0]
	second := tr.Stages[0]
	second.Index, second.Name = 1, "bisect 240/s"
	tr.Stages = append(tr.Stages, second)
	tr.Inside.Why = append(tr.Inside.Why, bench.Diagnosis{Target: tr.Key(), Stage: 1, Causes: []bench.Cause{{Kind: bench.VerdictCPUBound,
		Sentence: "java-virtual used 98 % of its 1-CPU limit", Share: 0.98}}})
	tr.Capacity = &bench.CapacityResult{Rate: 200, Confirmations: []bench.CapacityTrial{{Stage: 0, Rate: 200}}, Failed: &bench.CapacityTrial{Stage: 1, Rate: 240}}
	w := analysis.Analyze(r, analysis.ReportOptions{}).Why
	if len(w.Capacity) != 1 {
		t.Fatalf("capacity %+v", w.Capacity)
	}
	c := w.Capacity[0]
	want := "java-virtual: at 240 req/s, its first failing rate, cpu-bound (java-virtual used 98 % of its 1-CPU limit); at 200 req/s, its last passing rate, pinned"
	if !strings.HasPrefix(c.Sentence, want) {
		t.Errorf("sentence:\n%s\nwant it to start:\n%s", c.Sentence, want)
	}
	if w.Targets[0].Matters != 1 {
		t.Errorf("the stage that matters is %d, want the failing trial's, 1", w.Targets[0].Matters)
	}
}

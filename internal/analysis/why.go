package analysis

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/diagnosis"
	"github.com/threadbench/threadbench/internal/inside"
	"github.com/threadbench/threadbench/internal/units"
)

// findWhy is the kind of the findings that say why a target's stage ran as
// it did.
const findWhy = "why"

// beforeRecording is why a result stored before threadbench recorded
// inside its targets has no recording.
const beforeRecording = "the run was made before threadbench recorded inside its targets"

// why lays out the report's why: each subject's first measured round,
// stage by stage, as the run diagnosed it (internal/inside, with what
// recorded inside the target) or, for a result stored without, as
// internal/diagnosis finds it from the figures measured around the target.
func (a *analysis) why(rep bench.Report) *bench.WhyReport {
	w := &bench.WhyReport{Targets: []bench.WhyTarget{}}
	for _, s := range a.subjects {
		if len(s.rounds) == 0 {
			continue
		}
		w.Targets = append(w.Targets, whyTarget(s.info.Label, s.rounds[0]))
	}
	if len(w.Targets) == 0 {
		return nil
	}
	w.Capacity = a.whyCapacity()
	w.Overhead = a.overhead(rep)
	w.Flames = a.flames(w.Targets)
	w.Unsampled = unsampled(w.Targets)
	return w
}

// unsampled says of each subject recorded inside whose stage that matters
// was diagnosed without a CPU sample that it has no flame graph, and why.
func unsampled(targets []bench.WhyTarget) []string {
	var out []string
	for _, t := range targets {
		d := t.Stage(t.Matters)
		if t.Source == "" || t.Off || d == nil || d.Source == "" || d.Samples > 0 || hasFolded(t) {
			continue
		}
		out = append(out, fmt.Sprintf("%s, %s: no flame graph, as no CPU sample was taken in the stage (no thread was running code at any of the sampler's instants)",
			t.Label, stageTitle(t)))
	}
	return out
}

// Flames returns the flame graphs the report of r draws (the why's
// Flames), without analysing the rest of the run.
func Flames(r *bench.Run) []bench.FlameRef {
	a := newAnalysis(r, ReportOptions{})
	var targets []bench.WhyTarget
	for _, s := range a.subjects {
		if len(s.rounds) == 0 || s.rounds[0].Inside == nil {
			continue
		}
		tr := s.rounds[0]
		targets = append(targets, bench.WhyTarget{Label: s.info.Label, Key: tr.Key(), Source: tr.Inside.Source,
			Matters: mattersStage(tr), Files: tr.Inside.Files})
	}
	return a.flames(targets)
}

// WhyStage returns the diagnosis of one stage of a result: the run's own,
// else one made now from the figures measured around the target.
func WhyStage(tr *bench.TargetResult, st bench.StageResult) bench.Diagnosis {
	if d := tr.Inside.Stage(st.Index); d != nil {
		return *d
	}
	e := inside.StageEvidence(tr, st, nil)
	e.NoProfile = beforeRecording
	return diagnosis.Diagnose(e)
}

// whyTarget is one result's why.
func whyTarget(label string, tr *bench.TargetResult) bench.WhyTarget {
	wt := bench.WhyTarget{Label: label, Key: tr.Key(), NoProfile: beforeRecording, Matters: mattersStage(tr)}
	if in := tr.Inside; in != nil {
		wt.Source, wt.NoProfile, wt.Off, wt.Cost, wt.Files, wt.Notes, wt.JMC = in.Source, in.NoProfile, in.Off, in.Cost, in.Files, in.Notes, in.JMC
		wt.VirtualThreads = in.VirtualThreads
	}
	for _, st := range MeasuredStages(tr) {
		wt.Stages = append(wt.Stages, WhyStage(tr, st))
	}
	wt.Finding = whySentence(label, wt.Stage(wt.Matters), stageName(tr, wt.Matters))
	return wt
}

// mattersStage is the stage a report leads with: a capacity search's
// first failing trial, else the measured stage with the most load (the
// last of equals), where a target is pushed hardest.
func mattersStage(tr *bench.TargetResult) int {
	if c := tr.Capacity; c != nil && c.Failed != nil {
		return c.Failed.Stage
	}
	best, level := -1, -1.0
	for _, st := range MeasuredStages(tr) {
		if l := st.Level(); l >= level {
			best, level = st.Index, l
		}
	}
	return best
}

// stageName names a result's stage as the report's scopes do.
func stageName(tr *bench.TargetResult, index int) string {
	for _, st := range tr.Stages {
		if st.Index == index && !st.Warmup {
			return StageLabel(st.Index, st.Name)
		}
	}
	return fmt.Sprintf("stage %d", index+1)
}

// whySentence says a stage's why in one sentence: its strongest verdict
// (else a flag of the load's); without one, where its CPU samples fell, or
// why nothing recorded.
func whySentence(label string, d *bench.Diagnosis, stage string) string {
	switch {
	case d == nil:
		return label + ": no stage measured"
	case len(d.Causes) > 0:
		c := d.Causes[0]
		if v, ok := verdict(d); ok {
			c = v
		}
		return fmt.Sprintf("In %s, %s.", stage, c.Sentence)
	case len(d.OwnFrames) > 0 && d.Samples > 0:
		own := d.OwnFrames[0]
		return fmt.Sprintf("%s, %s: no bound reached; its own code was most in %s (%s of %d CPU samples).",
			label, stage, own.Frame, units.Percent(float64(own.Self)/float64(d.Samples)), d.Samples)
	case len(d.TopFrames) > 0 && d.Samples > 0:
		top := d.TopFrames[0]
		return fmt.Sprintf("%s, %s: no bound reached; its CPU samples fell most in %s (%s of %d).",
			label, stage, top.Frame, units.Percent(float64(top.Self)/float64(d.Samples)), d.Samples)
	case d.Source == "":
		return fmt.Sprintf("%s, %s: no bound reached that the figures show; nothing recorded inside it: %s.", label, stage, d.NoProfile)
	}
	return fmt.Sprintf("%s, %s: no bound reached that the evidence shows.", label, stage)
}

// whyFindings are the findings of the why: each subject's strongest cause
// at the stage that matters, where it has one.
func whyFindings(w *bench.WhyReport) []bench.Finding {
	if w == nil {
		return nil
	}
	var out []bench.Finding
	for _, t := range w.Targets {
		if d := t.Stage(t.Matters); d != nil {
			if _, ok := verdict(d); ok {
				out = append(out, bench.Finding{Kind: findWhy, Text: t.Finding})
			}
		}
	}
	for _, c := range w.Capacity {
		out = append(out, bench.Finding{Kind: findWhy, Text: c.Sentence})
	}
	for _, o := range w.Overhead {
		out = append(out, bench.Finding{Kind: findWhy, Text: o.Sentence})
	}
	return out
}

// verdict returns a diagnosis's strongest verdict on the target itself: its
// first cause that is not a flag of the load's (generator- or
// connection-bound, which the findings say already).
func verdict(d *bench.Diagnosis) (bench.Cause, bool) {
	for _, c := range d.Causes {
		if c.Kind != bench.FlagGeneratorBound && c.Kind != bench.FlagConnectionBound {
			return c, true
		}
	}
	return bench.Cause{}, false
}

// whyCapacity sets each capacity search's why at its first failing rate
// beside its last passing one.
func (a *analysis) whyCapacity() []bench.WhyCapacity {
	var out []bench.WhyCapacity
	for _, s := range a.subjects {
		if len(s.rounds) == 0 || s.rounds[0].Capacity == nil {
			continue
		}
		tr := s.rounds[0]
		c := tr.Capacity
		wc := bench.WhyCapacity{Label: s.info.Label}
		if c.Failed != nil {
			wc.FailingRate, wc.Failing = c.Failed.Rate, stageWhy(tr, c.Failed.Stage)
		}
		if conf, ok := c.LastPassed(); ok {
			wc.PassingRate, wc.Passing = c.Rate, stageWhy(tr, conf.Stage)
		}
		if wc.Failing == nil && wc.Passing == nil {
			continue
		}
		wc.Sentence = capacitySentence(wc)
		out = append(out, wc)
	}
	return out
}

// stageWhy is the diagnosis of a result's stage by index, nil when it
// measured none.
func stageWhy(tr *bench.TargetResult, index int) *bench.Diagnosis {
	for _, st := range MeasuredStages(tr) {
		if st.Index == index {
			d := WhyStage(tr, st)
			return &d
		}
	}
	return nil
}

// capacitySentence says what held the target at its first failing rate
// and at its last passing one.
func capacitySentence(wc bench.WhyCapacity) string {
	var parts []string
	if wc.Failing != nil {
		parts = append(parts, fmt.Sprintf("at %.0f req/s, its first failing rate, %s", wc.FailingRate, causeText(wc.Failing)))
	}
	if wc.Passing != nil {
		parts = append(parts, fmt.Sprintf("at %.0f req/s, its last passing rate, %s", wc.PassingRate, causeText(wc.Passing)))
	}
	return wc.Label + ": " + strings.Join(parts, "; ") + "."
}

// causeText is a diagnosis's strongest cause: its kind and sentence.
func causeText(d *bench.Diagnosis) string {
	if len(d.Causes) == 0 {
		return "no bound showed"
	}
	c := d.Causes[0]
	return c.Kind + " (" + c.Sentence + ")"
}

// overhead finds the subjects that ran the same target under the same
// settings with recording and without, and sets their whole attack's
// throughput side by side; and the same for the thread sampler's dumps.
func (a *analysis) overhead(rep bench.Report) []bench.Overhead {
	if len(rep.Scopes) == 0 {
		return nil
	}
	out := a.sideBySide(rep, recorded, turnedOff, func(o bench.Overhead, on *subject) bench.Overhead {
		o.Source = on.rounds[0].Inside.Source
		o.Sentence = fmt.Sprintf("Recording (%s) cost %s: %s req/s with it (%s), %s req/s without (%s), %+.1f %%.",
			o.Source, o.Target, units.Num(o.With), o.Recorded, units.Num(o.Without), o.Unrecorded, o.Change)
		return o
	})
	return append(out, a.sideBySide(rep, sampledDumps, dumpsOff, func(o bench.Overhead, on *subject) bench.Overhead {
		cost := on.rounds[0].Inside.Cost
		o.Source = SourceThreadDumps
		o.Sentence = fmt.Sprintf("Thread dumps cost %s: %s req/s with them (%s), %s req/s without (%s), %+.1f %%; %d dumps, %.1f ms each (%.1f %% of a CPU).",
			o.Target, units.Num(o.With), o.Recorded, units.Num(o.Without), o.Unrecorded, o.Change, cost.ThreadDumps, cost.DumpMs, 100*cost.DumpShare)
		return o
	})...)
}

// SourceThreadDumps names the thread sampler's dumps as what an Overhead
// measured.
const SourceThreadDumps = "thread dumps"

// sideBySide sets side by side each subject with something on and a subject
// of the same target, under the same settings, with it off: their whole
// attack's throughput, said by say.
func (a *analysis) sideBySide(rep bench.Report, isOn, isOff func(*subject) bool, say func(bench.Overhead, *subject) bench.Overhead) []bench.Overhead {
	var out []bench.Overhead
	for _, on := range a.subjects {
		if !isOn(on) {
			continue
		}
		for _, off := range a.subjects {
			if !isOff(off) || off.info.Target != on.info.Target || !sameSettings(on.spec, off.spec) {
				continue
			}
			with, ok1 := throughputOf(rep.Scopes[0], on.info.Label)
			without, ok2 := throughputOf(rep.Scopes[0], off.info.Label)
			if !ok1 || !ok2 || without <= 0 {
				continue
			}
			out = append(out, say(bench.Overhead{Target: on.info.Target, Recorded: on.info.Label, Unrecorded: off.info.Label,
				With: with, Without: without, Change: (with - without) / without * 100}, on))
		}
	}
	return out
}

// sampledDumps says whether a subject's first round took thread dumps.
func sampledDumps(s *subject) bool {
	return recorded(s) && s.rounds[0].Inside.Cost != nil && s.rounds[0].Inside.Cost.ThreadDumps > 0
}

// dumpsOff says whether the spec turned the thread sampler off for a
// recorded subject.
func dumpsOff(s *subject) bool { return recorded(s) && s.rounds[0].Inside.ThreadSamplesOff }

// recorded says whether a subject's first round recorded inside its target.
func recorded(s *subject) bool {
	return len(s.rounds) > 0 && s.rounds[0].Inside != nil && s.rounds[0].Inside.Source != ""
}

// turnedOff says whether the spec turned recording off for a subject.
func turnedOff(s *subject) bool {
	return len(s.rounds) > 0 && s.rounds[0].Inside != nil && s.rounds[0].Inside.Off
}

// sameSettings says whether two subjects ran under the same settings but
// for recording: Java options, workload and engine.
func sameSettings(a, b bench.RunSpec) bool {
	settings := func(s bench.RunSpec) string {
		j, _ := json.Marshal([]any{s.Java, s.Workload, s.Engine, s.Limits})
		return string(j)
	}
	return settings(a) == settings(b)
}

// throughputOf is a subject's throughput in a scope.
func throughputOf(sc bench.ReportScope, label string) (float64, bool) {
	for _, r := range sc.Results {
		if r.Label == label {
			return r.Figures.Throughput.Value, true
		}
	}
	return 0, false
}

// flames are the flame graphs a report draws: each subject's samples at
// the stage that matters, where kept, families together (a target's
// platform-thread and virtual-thread subjects side by side, platform
// first).
func (a *analysis) flames(targets []bench.WhyTarget) []bench.FlameRef {
	var refs []bench.FlameRef
	var families []string
	family := map[string]string{}
	for _, s := range a.subjects {
		if len(s.rounds) > 0 {
			family[s.info.Label] = familyOf(s.rounds[0])
			if !slices.Contains(families, family[s.info.Label]) {
				families = append(families, family[s.info.Label])
			}
		}
	}
	for _, t := range targets {
		if !hasFolded(t) {
			continue
		}
		refs = append(refs, bench.FlameRef{Label: t.Label, Key: t.Key, Stage: t.Matters, Source: t.Source,
			Title: fmt.Sprintf("%s, %s: CPU samples", t.Label, stageTitle(t))})
	}
	slices.SortStableFunc(refs, func(x, y bench.FlameRef) int {
		if d := slices.Index(families, family[x.Label]) - slices.Index(families, family[y.Label]); d != 0 {
			return d
		}
		return modelOrder(a.subject(x.Label)) - modelOrder(a.subject(y.Label))
	})
	return refs
}

// hasFolded says whether the run kept a subject's samples of the stage
// that matters.
func hasFolded(t bench.WhyTarget) bool {
	return slices.ContainsFunc(t.Files, func(f bench.Artifact) bool {
		return f.Kind == bench.ArtifactFolded && f.Stage != nil && *f.Stage == t.Matters
	})
}

// stageTitle names the stage a subject's flame graph is of.
func stageTitle(t bench.WhyTarget) string {
	return fmt.Sprintf("stage %d", t.Matters+1)
}

// familyOf groups a result with its other thread models: the Java
// targets of one JDK, a service's variants; a case stands alone.
func familyOf(tr *bench.TargetResult) string {
	ref := bench.ParseTargetRef(tr.Target)
	switch {
	case tr.Case != "":
		return "case " + tr.Case
	case ref.Name == bench.TargetJavaPlatform || ref.Name == bench.TargetJavaVirtual:
		return "java@" + ref.Variant
	}
	return ref.Name
}

// modelOrder puts platform threads before virtual threads before WebFlux's
// event loops before the rest.
func modelOrder(s *subject) int {
	if s == nil || len(s.rounds) == 0 {
		return 3
	}
	switch s.rounds[0].Settings["threadModel"] {
	case bench.ThreadModelPlatform:
		return 0
	case bench.ThreadModelVirtual:
		return 1
	case bench.ThreadModelReactive:
		return 2
	}
	return 3
}

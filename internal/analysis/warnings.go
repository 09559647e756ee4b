package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// runWarnings lists what makes two runs doubtful to compare: runs that did
// not succeed, specs that differ, and environments that differ.
func runWarnings(base, head *bench.Run) []string {
	var warnings []string
	for _, s := range []struct {
		side string
		run  *bench.Run
	}{{"base", base}, {"head", head}} {
		if w := runStatusWarning(s.side, s.run); w != "" {
			warnings = append(warnings, w)
		}
	}
	warnings = append(warnings, specWarnings(base.Spec, head.Spec)...)
	if w := environmentWarning(base.Environment, head.Environment); w != "" {
		warnings = append(warnings, w)
	}
	return warnings
}

func runStatusWarning(side string, r *bench.Run) string {
	if r.Status == bench.RunSucceeded {
		return ""
	}
	w := fmt.Sprintf("the %s run %s is %s, not succeeded", side, r.ID, r.Status)
	if r.Error != "" {
		w += ": " + r.Error
	}
	return w
}

// specWarnings names each part of the specs that differs, with both values,
// so that a reader can judge whether the comparison still means anything.
func specWarnings(base, head bench.RunSpec) []string {
	parts := []struct{ what, base, head string }{
		{"workload", DescribeWorkload(EffectiveWorkload(base)), DescribeWorkload(EffectiveWorkload(head))},
		{"profile", DescribeProfile(base.Profile), DescribeProfile(head.Profile)},
		{"limits", DescribeLimits(base.Limits), DescribeLimits(head.Limits)},
		{"warm-up", DescribeWarmup(base.Warmup), DescribeWarmup(head.Warmup)},
	}
	if HasJava(base) && HasJava(head) {
		parts = append(parts, struct{ what, base, head string }{"java options", DescribeJava(base.Java), DescribeJava(head.Java)})
	}
	var warnings []string
	for _, p := range parts {
		if p.base != p.head {
			warnings = append(warnings, fmt.Sprintf("specs differ in %s: base %s; head %s", p.what, p.base, p.head))
		}
	}
	return warnings
}

// EffectiveWorkload is the request mix a run used: its own, or its built-in
// profile's when it named none.
func EffectiveWorkload(s bench.RunSpec) bench.Workload {
	w := s.Workload
	if len(w.Requests) == 0 && s.Profile.Workload != nil {
		w.Requests = s.Profile.Workload.Requests
	}
	return w
}

// HasJava reports whether the spec runs a built-in Java target, the one
// kind of target whose runs the Java options are known to change.
func HasJava(s bench.RunSpec) bool {
	return slices.ContainsFunc(s.Targets, func(t string) bool { return bench.Builtin(t).Runtime == bench.RuntimeJava })
}

// environmentWarning names the host facts that differ between two runs.
// Facts a run did not record are not compared.
func environmentWarning(base, head bench.Environment) string {
	var diffs []string
	diff := func(what, b, h string) {
		if b != "" && h != "" && b != h {
			diffs = append(diffs, fmt.Sprintf("%s %s vs %s", what, b, h))
		}
	}
	diff("host", base.Host, head.Host)
	diff("CPU model", base.CPUModel, head.CPUModel)
	diff("CPUs", CountString(base.CPUs), CountString(head.CPUs))
	diff("kernel", base.Kernel, head.Kernel)
	diff("docker", base.DockerVersion, head.DockerVersion)
	diff("cgroup", base.CgroupVersion, head.CgroupVersion)
	diff("load cpuset", base.LoadCPUSet, head.LoadCPUSet)
	diff("target cpuset", base.TargetCPUSet, head.TargetCPUSet)
	diff("CPU split", SplitString(base.CPUSplitApplied), SplitString(head.CPUSplitApplied))
	diff("target hosts", engineHosts(base), engineHosts(head))
	if len(diffs) == 0 {
		return ""
	}
	return "environments differ: " + strings.Join(diffs, ", ")
}

// engineHosts lists the engines a run's targets ran on and their hosts:
// "lab@bench-2", "local@vm".
func engineHosts(env bench.Environment) string {
	parts := make([]string, len(env.Engines))
	for i, ee := range env.Engines {
		parts[i] = ee.Name + "@" + units.OrDash(ee.Host)
	}
	return strings.Join(parts, "+")
}

// CountString is n in digits, or nothing for 0.
func CountString(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

// SplitString says whether the CPU split between load and targets was applied.
func SplitString(applied bool) string {
	if applied {
		return "applied"
	}
	return "not applied"
}

// stagesComparable reports whether stage i of one run can be set beside
// stage i of the other: same load model, same number of stages. When not, it
// says why.
func stagesComparable(base, head *bench.Run) (bool, string) {
	if searched(base) || searched(head) {
		return false, "a capacity search's trials are at rates of its own, and a whole search averages them all: only the searches' answers are compared"
	}
	bm, bn := profileShape(base)
	hm, hn := profileShape(head)
	if bm == hm && bn == hn {
		return true, ""
	}
	return false, fmt.Sprintf("base profile has %d %s stages, head profile has %d %s stages", bn, bm, hn, hm)
}

// profileShape returns a run's load model and stage count, from its spec, or
// from its measured stages when the spec only named a built-in profile.
func profileShape(r *bench.Run) (bench.Model, int) {
	model, n := r.Spec.Profile.Model, len(r.Spec.Profile.Stages)
	if n == 0 {
		for _, t := range r.Targets {
			if stages := MeasuredStages(&t); len(stages) > n {
				model, n = stages[0].Model, len(stages)
			}
		}
	}
	return bench.ModelOf(model).Name(), n
}

// notes gathers per-scope remarks under one message each, so that a target
// missing histograms for five stages yields one warning, not five. Messages
// keep the order in which they were first noted.
type notes struct {
	entries  []*note
	byFormat map[string]*note
}

type note struct {
	text   string   // a format with one %s for the scopes, or plain text
	scopes []string // nil for plain text
}

// add notes scope under format, a message with one %s for the scope list.
func (n *notes) add(format, scope string) {
	if n.byFormat == nil {
		n.byFormat = map[string]*note{}
	}
	e, ok := n.byFormat[format]
	if !ok {
		e = &note{text: format}
		n.byFormat[format] = e
		n.entries = append(n.entries, e)
	}
	e.scopes = append(e.scopes, scope)
}

// addOnce notes a message that concerns no scope, once.
func (n *notes) addOnce(text string) {
	for _, e := range n.entries {
		if e.scopes == nil && e.text == text {
			return
		}
	}
	n.addLine(text)
}

// addLine notes a message that concerns no scope in particular.
func (n *notes) addLine(text string) {
	n.entries = append(n.entries, &note{text: text})
}

func (n *notes) lines() []string {
	lines := make([]string, len(n.entries))
	for i, e := range n.entries {
		lines[i] = e.text
		if e.scopes != nil {
			lines[i] = fmt.Sprintf(e.text, strings.Join(e.scopes, ", "))
		}
	}
	return lines
}

package analysis

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// The describe functions write one part of a spec on one line. Comparisons
// use them both to detect a difference and to name it, so a difference that
// a reader cannot see in the description is not reported either.

// DescribeProfile says a profile's model and stages: "closed: 10s at 100 clients, ...".
func DescribeProfile(p bench.Profile) string {
	return fmt.Sprintf("%s: %s", p.LoadModel().Name(), DescribeStages(p))
}

// DescribeStages says each stage of a profile, its duration and its load.
func DescribeStages(p bench.Profile) string {
	model := p.LoadModel()
	stages := make([]string, len(p.Stages))
	for i, st := range p.Stages {
		stages[i] = describeStage(model, st)
	}
	return strings.Join(stages, ", ")
}

func describeStage(model bench.LoadModel, st bench.Stage) string {
	level := ValueWithUnit(model.Level(st), model.Unit())
	if st.Ramp {
		return fmt.Sprintf("%s ramp to %s", st.Duration, level)
	}
	return fmt.Sprintf("%s at %s", st.Duration, level)
}

// DescribeWorkload says the requests of a workload with their weights, and its timeout.
func DescribeWorkload(w bench.Workload) string {
	reqs := make([]string, len(w.Requests))
	for i, r := range w.Requests {
		path := r.Path()
		if r.URI != "" {
			// A request of one's own: its method says as much as its path.
			path = r.HTTPMethod() + " " + path
		}
		reqs[i] = fmt.Sprintf("%s x%d", path, r.Weight)
	}
	desc := strings.Join(reqs, ", ")
	if desc == "" {
		desc = "profile default"
	}
	if w.Timeout != 0 {
		desc += fmt.Sprintf("; timeout %s", w.Timeout)
	}
	return desc
}

// DescribeWarmup says how a run warms up: disabled, until steady, or a duration at a rate.
func DescribeWarmup(w bench.Warmup) string {
	switch {
	case w.Disabled:
		return "disabled"
	case w.UntilSteady:
		load := "the first stage's load"
		if w.Fraction > 0 && w.Fraction < 1 {
			load = fmt.Sprintf("%s of the first stage's load", strconv.FormatFloat(w.Fraction*100, 'f', -1, 64)+"%")
		}
		return fmt.Sprintf("until steady at %s (over %s, at most %s)", load, w.Window, w.MaxDuration)
	}
	return fmt.Sprintf("%s at %s req/s", w.Duration, units.Num(w.Rate))
}

// DescribeLimits says a target's CPU and memory limits.
func DescribeLimits(l bench.Limits) string {
	cpus := "no CPU limit"
	if l.CPUs != 0 {
		cpus = fmt.Sprintf("%g CPU", l.CPUs)
		if l.CPUs != 1 {
			cpus += "s"
		}
	}
	mem := "no memory limit"
	if l.MemoryMiB != 0 {
		mem = fmt.Sprintf("%d MiB", l.MemoryMiB)
	}
	return cpus + ", " + mem
}

// DescribeJava says the Java options set, by their setting names.
func DescribeJava(j bench.JavaOptions) string {
	opts := map[string]string{}
	if j.TomcatMaxThreads != 0 {
		opts[bench.SettingTomcatMaxThreads] = fmt.Sprint(j.TomcatMaxThreads)
	}
	if j.VirtualParallelism != 0 {
		opts["virtualParallelism"] = fmt.Sprint(j.VirtualParallelism)
	}
	if j.HeapPercent != 0 {
		opts["heapPercent"] = fmt.Sprintf("%g", j.HeapPercent)
	}
	if j.GC != "" {
		opts["gc"] = j.GC
	}
	if j.BaseImage != "" {
		opts["baseImage"] = j.BaseImage
	}
	return JoinSorted(opts, "defaults")
}

// JoinSorted writes key=value pairs in key order, or empty when there are none.
func JoinSorted(kv map[string]string, empty string) string {
	if len(kv) == 0 {
		return empty
	}
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pairs := make([]string, len(keys))
	for i, k := range keys {
		pairs[i] = k + "=" + kv[k]
	}
	return strings.Join(pairs, " ")
}

// DescribeWarmupSteady says how a warm-up until steady ended: "steady
// after 12.0 s; JIT 3.1 s, then 0.2 s in the measured part" or "its 2m0s
// maximum hit, throughput still +0.8 %/s" (or the JIT still compiling).
func DescribeWarmupSteady(ws bench.WarmupSteady) string {
	s := fmt.Sprintf("steady after %.1f s", ws.Seconds)
	if !ws.Steady {
		s = fmt.Sprintf("its %s maximum hit, %s", ws.MaxDuration, missedWords(ws))
	}
	if ws.JITMs != nil && ws.JITMsMeasured != nil {
		s += fmt.Sprintf("; JIT %.1f s, then %.1f s in the measured part", *ws.JITMs/1000, *ws.JITMsMeasured/1000)
	}
	return s
}

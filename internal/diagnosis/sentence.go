package diagnosis

import (
	"fmt"
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/flame"
	"github.com/threadbench/threadbench/internal/units"
)

// onJDK names the JDK a Java target ran on, "" for other runtimes.
func onJDK(jdk int) string {
	if jdk == 0 {
		return ""
	}
	return fmt.Sprintf(" on JDK %d", jdk)
}

// whereClause says where most of a cause's time went, naming the frame.
func whereClause(stacks []bench.StackCount) string {
	frame, share := culprit(stacks)
	if frame == "" {
		return ""
	}
	return fmt.Sprintf(", %s of it in %s", units.Percent(share), frame)
}

// pinsClause says whether the JDK pins in synchronized, which tells what
// the pins were.
func pinsClause(jdk int) string {
	switch {
	case jdk == 0:
		return ""
	case jdk < JEP491:
		return fmt.Sprintf("; JDK %d still pins a virtual thread that blocks inside synchronized (JEP 491 lifted that in JDK %d)", jdk, JEP491)
	}
	return fmt.Sprintf("; JDK %d no longer pins in synchronized (JEP 491), so these pins are native frames or class initializers on the stack", jdk)
}

// flagSentence says that the load, not the target, may have set a
// stage's pace.
func flagSentence(target string, f bench.Flag) string {
	what := "the load generator limited the stage"
	if f.Kind == bench.FlagConnectionBound {
		what = "the connections limited the stage"
	}
	return fmt.Sprintf("%s: %s, so its figures may not be the target's alone (%s)", target, what, f.Reason)
}

// cpuClause says where a cpu-bound stage's CPU went: the heaviest subtree
// of its samples and the frame inside it they ran in most ("58 % of its
// 606 CPU samples under jdk.internal.loader.URLClassPath.findResource,
// the most in java.util.zip.ZipFile$Source.getEntryPos (12 %)"), then
// where the service's own code was and the frame they ran in most, each
// where it is another; framesClause where no subtree holds SubtreeShare.
func cpuClause(d bench.Diagnosis, samples flame.Stacks) string {
	s, ok := heaviestSubtree(samples)
	if !ok {
		return framesClause(d)
	}
	share := func(n int64) string { return units.Percent(float64(n) / float64(s.StageSamples)) }
	out := fmt.Sprintf("; %s of its %d CPU samples under %s", share(s.Samples), s.StageSamples, s.Frame)
	if s.Hottest != s.Frame {
		out += fmt.Sprintf(", the most in %s (%s)", s.Hottest, share(s.HottestSelf))
	}
	named := []string{s.Frame, s.Hottest}
	if len(d.OwnFrames) > 0 && !slices.Contains(named, d.OwnFrames[0].Frame) {
		own := d.OwnFrames[0]
		out += fmt.Sprintf("; its own code was most in %s (%s)", own.Frame, share(own.Self))
		named = append(named, own.Frame)
	}
	if len(d.TopFrames) > 0 && !slices.Contains(named, d.TopFrames[0].Frame) {
		top := d.TopFrames[0]
		out += fmt.Sprintf("; they ran most in %s (%s)", top.Frame, share(top.Self))
	}
	return out
}

// framesClause names where the CPU samples fell: the service's own frame
// they were most in, where its code is told apart, and the frame they ran
// in most.
func framesClause(d bench.Diagnosis) string {
	if d.Samples == 0 || len(d.TopFrames) == 0 {
		return ""
	}
	share := func(n int64) string { return units.Percent(float64(n) / float64(d.Samples)) }
	top := d.TopFrames[0]
	if len(d.OwnFrames) == 0 || d.OwnFrames[0].Frame == top.Frame {
		return fmt.Sprintf("; its CPU samples fell most in %s (%s of %d)", top.Frame, share(top.Self), d.Samples)
	}
	own := d.OwnFrames[0]
	return fmt.Sprintf("; its own code was most in %s (%s of %d CPU samples), which ran most in %s (%s)",
		own.Frame, share(own.Self), d.Samples, top.Frame, share(top.Self))
}

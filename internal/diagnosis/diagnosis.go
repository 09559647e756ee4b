// Package diagnosis says why a target's stage ran as it did: from what was
// recorded inside the target (JFR events, a Go CPU profile, cut to the
// stage) and what the project measured around it (throughput, threads and
// pools in use, the container's CPU, GC pauses, the generator's flags), a
// verdict per cause with its figures, the stacks it happened in, and one
// sentence naming it; and the frames the stage's CPU samples fell in most.
// Its knowledge is in documented tables: the well-known waits a blocked
// thread's stack names (waits.go: pools, drivers, clients), the generic
// dispatch a CPU sentence looks past (subtree.go), and what to try
// against each cause (tries.go).
//
// It returns bench.Diagnosis, which the report renders; it renders nothing
// itself.
package diagnosis

import (
	"cmp"
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/flame"
	"github.com/threadbench/threadbench/internal/jfr"
)

// Thresholds of the verdicts.
const (
	// BoundShare is how close to its limit a pool or the CPU must be, on
	// average over the stage, to have bound it.
	BoundShare = 0.9
	// ThrottledShare is the share of CFS periods throttled from which the
	// CPU limit bound the stage, whatever the mean use.
	ThrottledShare = 0.2
	// NotableShare is the share of the stage's time (the carriers' for
	// pins, the request threads' for locks, the wall clock's for GC)
	// from which a cause is reported.
	NotableShare = 0.1
	// TailShare is how far a stage's p99 must stand above its p50, a share
	// of the p50, for its tail to have a cause of its own; StallShare how
	// much of that lead one GC pause must take to be that cause (stall).
	TailShare  = 0.5
	StallShare = 0.5
	// JEP491 is the JDK from which a virtual thread blocked in
	// synchronized unmounts instead of pinning its carrier.
	JEP491 = 24
	// MainWaitShare is the share of a lock-bound cause's time one
	// well-known wait (waits) must take for the cause to be named by it.
	MainWaitShare = 0.5
	// SubtreeShare is the share of a stage's CPU samples a frame must be
	// on the stack of for the CPU sentence to name it (heaviestSubtree).
	SubtreeShare = 0.3
)

// How much a diagnosis lists.
const (
	TopStacks  = 3  // stacks per cause
	TopFrames  = 10 // CPU frames
	StackDepth = 8  // frames of a cause's stack, from the code that caused it outwards
)

// Evidence is what is known of one target in one stage.
type Evidence struct {
	Target    string // TargetResult.Key(), e.g. "orders@virtual"
	JDK       int    // the Java major the target ran on; 0 for other runtimes
	Stage     bench.StageResult
	Resources *bench.StageResources // nil when nothing was scraped
	// Database is the run's database server over the stage, nil without
	// one.
	Database *bench.DatabaseStage
	Limits   bench.Limits
	// Remote is set for a target on another host's engine: between it and
	// the load generator is a network, not this host's loopback.
	Remote bool
	// Pool is the target's request pool, where it has one and it was
	// measured: Tomcat's threads, the Go target's workers.
	Pool *Pool
	// CPU is the container's CPU over the stage, where its stats were
	// read; without it the CPU share comes from Resources' CPU seconds.
	CPU *CPU
	// Carriers is the virtual-thread scheduler's parallelism (the
	// carriers); 0 means its default, the CPUs the JVM sees.
	Carriers float64
	// Events are the JFR events cut to the stage (jfr.Cut); Samples the
	// CPU samples folded (jfr.ExecutionStacks, goprof's Stacks) where
	// the target was profiled.
	Events  []jfr.Event
	Samples flame.Stacks
	// Own tells the service's own frames from the runtime's and the
	// libraries' (a package prefix, say); nil when they are not told apart.
	Own func(frame string) bool
	// Source is what recorded inside the target (bench.ProfileJFR,
	// bench.ProfilePprof); NoProfile why nothing did.
	Source    string
	NoProfile string
}

// Pool is a bounded pool the target serves requests from.
type Pool struct {
	Name string      // e.g. "Tomcat threads"
	Busy bench.Gauge // in use over the stage
	Max  float64     // its size
}

// CPU is the container's CPU over a stage, as shares of its limit.
type CPU struct {
	Share, PeakShare float64 // mean and highest second's use, 0..1 of the limit
	// ThrottledPeriods of Periods CFS periods found the quota spent.
	ThrottledPeriods, Periods float64
}

// Diagnose returns the verdicts the evidence supports, strongest first
// (the generator's and the connections' flags before any, since they say
// the figures are not the target's alone, but the connections' after a
// stall or the network: a target that stopped in a GC pause, or a network
// that held each request for a retransmission, ran them short), and the top
// CPU frames; each cause says what to try against it (tries). A stall
// leads the causes of no greater share (the share of the tail its pause
// is), not one that held the target for more of the stage: on JDK 21,
// carriers pinned 93 % of a stage set its throughput and its p50 (4× the
// service time) whatever one 0.11 s pause added to its p99.
func Diagnose(e Evidence) bench.Diagnosis {
	d := bench.Diagnosis{Target: e.Target, Stage: e.Stage.Index, Source: e.Source, NoProfile: e.NoProfile,
		JDK: e.JDK, SynchronizedPins: e.JDK > 0 && e.JDK < JEP491}
	for _, verdict := range []func(Evidence) (bench.Cause, bool){pinned, lockBound, gcBound, cpuBound, poolBound, dbPoolBound} {
		if c, ok := verdict(e); ok {
			d.Causes = append(d.Causes, c)
		}
	}
	if len(d.Causes) == 0 {
		if c, ok := networkBound(e); ok {
			d.Causes = append(d.Causes, c)
		}
	}
	slices.SortStableFunc(d.Causes, func(a, b bench.Cause) int {
		return cmp.Or(cmp.Compare(b.Share, a.Share), -cmp.Compare(boolInt(heldTheRequests(a)), boolInt(heldTheRequests(b))))
	})
	d.Causes = explainedByDBPool(d.Causes, e)
	stalls := 0 // the connections' flags come after the last cause that held the requests
	for i, c := range d.Causes {
		if heldTheRequests(c) {
			stalls = i + 1
		}
	}
	flags := flagged(e)
	gen := 0
	for gen < len(flags) && flags[gen].Kind == bench.FlagGeneratorBound {
		gen++
	}
	d.Causes = slices.Concat(flags[:gen], d.Causes[:stalls], flags[gen:], d.Causes[stalls:])
	d.TopFrames = e.Samples.Top(TopFrames)
	d.Samples = e.Samples.Total()
	if e.Own != nil {
		d.OwnFrames = e.Samples.TopInnermost(TopFrames, e.Own)
	}
	for i := range d.Causes {
		if d.Causes[i].Kind == bench.VerdictCPUBound {
			d.Causes[i].Sentence += cpuClause(d, e.Samples)
		}
		d.Causes[i].Try = tryFor(d.Causes[i], e)
	}
	return d
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// flagged turns the stage's generator-bound and connection-bound flags
// into causes: the load, not the target, may have set the pace.
// The generator's come first.
func flagged(e Evidence) []bench.Cause {
	var out []bench.Cause
	for _, kind := range []string{bench.FlagGeneratorBound, bench.FlagConnectionBound} {
		for _, f := range e.Stage.Flags {
			if f.Kind == kind {
				out = append(out, bench.Cause{Kind: f.Kind, Share: 1, Sentence: flagSentence(e.Target, f)})
			}
		}
	}
	return out
}

// seconds returns the stage's length.
func (e Evidence) seconds() float64 { return e.Stage.Duration.D().Seconds() }

// carriers returns the carriers virtual threads ran on: the scheduler's
// parallelism, else the CPUs the JVM sees (its default: the limit rounded
// up), else 1.
func (e Evidence) carriers() float64 {
	switch {
	case e.Carriers > 0:
		return e.Carriers
	case e.Limits.CPUs > 0:
		return float64(int(e.Limits.CPUs + 0.999))
	}
	return 1
}

// requestThreads returns how many threads served requests at once on
// average: the virtual threads in flight where scraped, else Little's
// law (completions a second × mean latency), at least 1.
func (e Evidence) requestThreads() float64 {
	if e.Resources != nil {
		if g, ok := e.Resources.Threads[bench.ThreadVirtual]; ok && g.Mean > 0 {
			return g.Mean
		}
	}
	return max(e.Stage.Stats.Throughput*e.Stage.Stats.Latency.Mean/1000, 1)
}

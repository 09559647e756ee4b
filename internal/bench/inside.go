package bench

import (
	"context"
	"io"
	"strconv"
)

// Inside is what recorded inside one target result, and what that
// evidence says of each of its measured stages.
type Inside struct {
	// Source is what recorded inside the target (ProfileJFR,
	// ProfilePprof); empty when nothing did, NoProfile then says why.
	Source    string `json:"source,omitempty"`
	NoProfile string `json:"noProfile,omitempty"`
	// Off is set when the spec turned recording off (RunSpec.NoProfile)
	// for this result: its figures are the ones without recording.
	Off bool `json:"off,omitempty"`
	// JDK is the Java major the target ran on, 0 where it is not known.
	JDK int `json:"jdk,omitempty"`
	// Why is the diagnosis of each measured stage (a capacity search's
	// trials included), in stage order.
	Why []Diagnosis `json:"why,omitempty"`
	// Files are what the run's store keeps of the recording: the JVM's
	// whole recording, a Go CPU profile per stage, the samples of each
	// stage folded.
	Files []Artifact `json:"files,omitempty"`
	// Cost is what reading the recording took once the attack was over.
	Cost *InsideCost `json:"cost,omitempty"`
	// Notes say what was left out, and why: a type of event beyond the
	// reading budget, a file beyond the store's bound.
	Notes []string `json:"notes,omitempty"`
	// JMC is JDK Mission Control's analysis of a JVM's recording.
	JMC *JMCAnalysis `json:"jmc,omitempty"`
	// ThreadSamplesOff is set when the spec turned the thread sampler off
	// for this result (RunSpec.NoThreadSamples): its figures are the ones
	// without it.
	ThreadSamplesOff bool `json:"threadSamplesOff,omitempty"`
	// VirtualThreads are the virtual threads the thread sampler's dumps
	// listed in each measured stage, alive and parked (unmounted,
	// waiting or asleep): what a JVM without Micrometer's virtual-thread
	// metrics says of them, and how many of a stage's requests wait
	// rather than run.
	VirtualThreads []VirtualThreadStage `json:"virtualThreads,omitempty"`
}

// VirtualThreadStage is one measured stage's virtual threads as the
// thread dumps counted them: the dumps taken in it, the most and the mean
// alive, and the most and the mean parked.
type VirtualThreadStage struct {
	Stage      int     `json:"stage"`
	Dumps      int     `json:"dumps"`
	PeakAlive  int     `json:"peakAlive"`
	MeanAlive  float64 `json:"meanAlive"`
	PeakParked int     `json:"peakParked"`
	MeanParked float64 `json:"meanParked"`
}

// InsideCost is what recording took in time and room once the attack was
// over: measured, so that a run says what its evidence cost.
type InsideCost struct {
	// StopSeconds is the target's stop (a JVM writes its recording as it
	// exits), CopySeconds the copy out of its container, ReadSeconds the
	// reading (jfr summary, jfr print, decoding; a Go profile's parsing).
	StopSeconds float64 `json:"stopSeconds,omitempty"`
	CopySeconds float64 `json:"copySeconds,omitempty"`
	ReadSeconds float64 `json:"readSeconds,omitempty"`
	// Bytes is the size of the recording, or of the CPU profiles.
	Bytes int64 `json:"bytes,omitempty"`
	// Events are the events read; Depths the stack depth each type of
	// event was read with, Skipped the events of types left unread.
	Events  int64            `json:"events,omitempty"`
	Depths  map[string]int   `json:"depths,omitempty"`
	Skipped map[string]int64 `json:"skipped,omitempty"`
	// ThreadDumps are the thread sampler's dumps over the whole run, taken
	// every DumpPeriodMs; DumpMs is a dump's mean time, DumpShare the
	// share of one CPU the dumps took at that period (an upper bound).
	ThreadDumps  int     `json:"threadDumps,omitempty"`
	DumpPeriodMs float64 `json:"dumpPeriodMs,omitempty"`
	DumpMs       float64 `json:"dumpMs,omitempty"`
	DumpShare    float64 `json:"dumpShare,omitempty"`
}

// Stage returns the diagnosis of a stage, or nil.
func (in *Inside) Stage(index int) *Diagnosis {
	if in == nil {
		return nil
	}
	for i := range in.Why {
		if in.Why[i].Stage == index {
			return &in.Why[i]
		}
	}
	return nil
}

// Kinds of Artifact: the file names the API serves them by.
const (
	ArtifactJFR    = "recording.jfr" // a JVM's whole recording
	ArtifactPprof  = "profile.pb.gz" // a Go target's CPU profile of one stage
	ArtifactFolded = "stacks.folded" // one stage's CPU samples, folded
	// ArtifactThreads is a JVM's thread samples over the whole attack: the
	// thread sampler's file (internal/threaddump), virtual threads
	// included.
	ArtifactThreads = "threads.txt"
)

// ArtifactKinds are the kinds of Artifact, in the order they are listed.
var ArtifactKinds = []string{ArtifactJFR, ArtifactThreads, ArtifactPprof, ArtifactFolded}

// WholeRun reports whether a kind of Artifact is of a target's whole
// attack, not of one stage.
func WholeRun(kind string) bool { return kind == ArtifactJFR || kind == ArtifactThreads }

// Bounds of what a run keeps of its recordings: a file beyond a bound is
// not kept (its diagnosis is), and the result's notes say so.
const (
	MaxArtifactBytes    = 320 << 20 // one file: a JVM's recording at its maximum size
	MaxRunArtifactBytes = 1 << 30   // every file of one run
)

// Artifact is a file recorded inside a target of a run: its result's key,
// the stage it is of (nil for a whole recording), its kind and its size.
type Artifact struct {
	Target string `json:"target"`
	Stage  *int   `json:"stage,omitempty"`
	Kind   string `json:"kind"`
	Bytes  int64  `json:"bytes"`
}

// Path returns where the API serves the artifact, under the run's path:
// "targets/orders@virtual/recording.jfr",
// "targets/go/stages/1/stacks.folded". The key is not escaped.
func (a Artifact) Path() string {
	p := "targets/" + a.Target + "/"
	if a.Stage != nil {
		p += "stages/" + strconv.Itoa(*a.Stage) + "/"
	}
	return p + a.Kind
}

// FileName returns a name to save the artifact as, unique within its run:
// "orders@virtual.jfr", "go-stage1.pb.gz".
func (a Artifact) FileName() string {
	name := a.Target
	if a.Stage != nil {
		name += "-stage" + strconv.Itoa(*a.Stage)
	}
	switch a.Kind {
	case ArtifactJFR:
		return name + ".jfr"
	case ArtifactPprof:
		return name + ".pb.gz"
	case ArtifactThreads:
		return name + ".threads.txt"
	}
	return name + ".folded"
}

// Same reports whether a and b name the same file of a run.
func (a Artifact) Same(b Artifact) bool {
	return a.Target == b.Target && a.Kind == b.Kind && (a.Stage == nil) == (b.Stage == nil) &&
		(a.Stage == nil || *a.Stage == *b.Stage)
}

// ArtifactStore keeps the files recorded inside a run's targets, with the
// run: deleting the run deletes them.
type ArtifactStore interface {
	// SaveArtifact stores a file of a run's target read from r, which holds
	// a.Bytes bytes, replacing a file of the same name: ENOTFOUND for a run
	// or a target the run does not have, EINVALID for an unknown kind or a
	// file beyond MaxArtifactBytes, ECONFLICT for one that would take the
	// run beyond MaxRunArtifactBytes.
	SaveArtifact(ctx context.Context, runID string, a Artifact, r io.Reader) error
	// Artifacts lists the files of a run (ENOTFOUND for an unknown run).
	Artifacts(ctx context.Context, runID string) ([]Artifact, error)
	// WriteArtifact writes a file of a run to w; ENOTFOUND when it has none
	// of that name.
	WriteArtifact(ctx context.Context, runID string, a Artifact, w io.Writer) error
}

// InsideInfo is what records inside a started target.
type InsideInfo struct {
	// Source is ProfileJFR or ProfilePprof; empty when nothing records,
	// NoProfile then says why.
	Source    string
	NoProfile string
	// ProfileURL is where a Go target's CPU profile is fetched
	// (net/http/pprof's /debug/pprof/profile).
	ProfileURL string
	// OwnPrefix starts the names of the service's own frames (a Java
	// package "com.example.orders.", a Go module path), so that a
	// diagnosis finds its code among the libraries'; empty when not known.
	OwnPrefix string
	// ThreadSamples says a JVM runs threadbench's thread sampler (its
	// dumps list virtual threads, parked or not); NoThreadSamples why one
	// that records does not.
	ThreadSamples   bool
	NoThreadSamples string
	// ThreadSamplesOff says the spec turned the sampler off.
	ThreadSamplesOff bool
}

// InsideTarget is a started Target that can record what happens inside
// it (internal/targets' instances do). A Target that is not one records
// nothing.
type InsideTarget interface {
	Target
	// Inside says what records inside the target.
	Inside() InsideInfo
	// Halt stops the target's process and keeps its container, so that
	// what it writes as it exits (a JVM's recording) can be copied out;
	// Stop then removes it.
	Halt(ctx context.Context) error
	// CopyRecording copies the JVM's recording out of the halted container
	// into the file dst, and returns its size.
	CopyRecording(ctx context.Context, dst string) (int64, error)
	// CopyThreadSamples copies the thread sampler's file out of the
	// halted container into dst, and returns its size.
	CopyThreadSamples(ctx context.Context, dst string) (int64, error)
	// RunJFR runs the JDK's jfr tool with args on a recording (file, the
	// last argument), writing its output to stdout: the tool in the
	// target's image, for a host without a JDK.
	RunJFR(ctx context.Context, stdout io.Writer, file string, args ...string) error
}

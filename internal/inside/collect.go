package inside

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/diagnosis"
	"github.com/threadbench/threadbench/internal/flame"
	"github.com/threadbench/threadbench/internal/jfr"
	"github.com/threadbench/threadbench/internal/jmcrules"
)

// profileWait bounds the wait for the stage profile under way when the
// attack ends: its stage is over, so it ends within a moment.
const profileWait = 10 * time.Second

// Collection is what Collect needs of the run.
type Collection struct {
	RunID  string
	Result *bench.TargetResult
	// Series are the result's series (EvidenceSeries at least), for the
	// evidence around each stage; nil without.
	Series []bench.Series
	// Store keeps the files; nil keeps none.
	Store bench.ArtifactStore
	// Dir is where the recording is copied to be read; a temporary
	// directory when empty.
	Dir string
	// Tool reads the recording; nil means the host's jfr, else the one in
	// the target's image.
	Tool *jfr.Tool
	// JMC runs JDK Mission Control's rules on the recording; nil means
	// jmcrules.Analyze (the host's JDK, JMC's jars from Maven Central).
	JMC func(ctx context.Context, recording string) (*jmcrules.Result, error)
}

// Collect ends the session once the attack is over and returns what the
// result's Inside holds: a JVM is halted (it writes its recording as it
// exits), its recording copied out and read, and cut by the stages'
// windows; a Go target's profiles are those of its stages. Each measured
// stage is diagnosed from that and from what was measured around it, and
// the files are kept in the store. The caller stops the target after.
func (s *Session) Collect(ctx context.Context, c Collection) *bench.Inside {
	s.stopProfiles(profileWait)
	in := &bench.Inside{Source: s.info.Source, NoProfile: s.info.NoProfile, Off: s.off, JDK: JDK(c.Result)}
	var ev stageSource
	switch in.Source {
	case bench.ProfileJFR:
		ev = s.readRecording(ctx, c, in)
	case bench.ProfilePprof:
		ev = s.readProfiles(in)
	}
	for _, st := range measured(c.Result) {
		in.Why = append(in.Why, s.diagnose(ctx, c, in, st, ev))
	}
	if in.JMC != nil {
		in.JMC.Disagree = diagnosis.AgainstJMC(in.JMC, in.Why)
	}
	return in
}

// stageSource gives what recorded inside a stage: its events and folded
// samples, its raw profile where it has one of its own, or why nothing did.
type stageSource func(stage int) (events []jfr.Event, samples flame.Stacks, raw []byte, noProfile string)

// diagnose diagnoses one stage and keeps its files.
func (s *Session) diagnose(ctx context.Context, c Collection, in *bench.Inside, st bench.StageResult, ev stageSource) bench.Diagnosis {
	e := StageEvidence(c.Result, st, c.Series)
	e.Source, e.NoProfile = in.Source, in.NoProfile
	if prefix := s.info.OwnPrefix; prefix != "" {
		e.Own = func(frame string) bool { return strings.HasPrefix(frame, prefix) }
	}
	if ev != nil && in.Source != "" {
		var raw []byte
		var why string
		e.Events, e.Samples, raw, why = ev(st.Index)
		if why != "" {
			e.Source, e.NoProfile = "", why
		}
		stage := st.Index
		if len(raw) > 0 {
			s.keep(ctx, c, in, bench.Artifact{Target: c.Result.Key(), Stage: &stage, Kind: bench.ArtifactPprof, Bytes: int64(len(raw))}, bytes.NewReader(raw))
		}
		if len(e.Samples) > 0 {
			var folded bytes.Buffer
			_, _ = e.Samples.WriteTo(&folded)
			s.keep(ctx, c, in, bench.Artifact{Target: c.Result.Key(), Stage: &stage, Kind: bench.ArtifactFolded, Bytes: int64(folded.Len())}, &folded)
		}
	}
	return diagnosis.Diagnose(e)
}

// readRecording halts the JVM, copies its recording out, reads it and
// keeps it; what it read is given stage by stage. A recording that could
// not be had or read leaves in saying why.
func (s *Session) readRecording(ctx context.Context, c Collection, in *bench.Inside) stageSource {
	cost := &bench.InsideCost{}
	in.Cost = cost
	begin := time.Now()
	if err := s.target.Halt(ctx); err != nil {
		return s.noRecording(in, "the target could not be stopped to write its recording: "+err.Error())
	}
	cost.StopSeconds = time.Since(begin).Seconds()
	dir, err := workDir(c.Dir)
	if err != nil {
		return s.noRecording(in, err.Error())
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "recording.jfr")
	begin = time.Now()
	size, err := s.target.CopyRecording(ctx, file)
	cost.CopySeconds, cost.Bytes = time.Since(begin).Seconds(), size
	if err != nil {
		return s.noRecording(in, s.whyNoRecording(ctx, err))
	}
	begin = time.Now()
	rec, err := s.tool(c.Tool).Read(ctx, file, 0)
	cost.ReadSeconds = time.Since(begin).Seconds()
	s.keepFile(ctx, c, in, bench.Artifact{Target: c.Result.Key(), Kind: bench.ArtifactJFR, Bytes: size}, file)
	if err != nil {
		return s.noRecording(in, "the recording could not be read: "+err.Error())
	}
	cost.Events, cost.Depths, cost.Skipped = int64(len(rec.Events)), rec.Depths, rec.Skipped
	in.Notes = append(in.Notes, readingNotes(rec)...)
	in.JMC = s.analyzeJMC(ctx, c, file)
	if samples := s.readThreadSamples(ctx, c, in, dir); len(samples) > 0 {
		rec.Events = append(rec.Events, samples...)
		slices.SortStableFunc(rec.Events, func(a, b jfr.Event) int { return a.Start.Compare(b.Start) })
	}
	return s.recordingStages(rec)
}

// recordingStages gives each stage the recording's events inside its
// window, and their execution samples folded.
func (s *Session) recordingStages(rec *jfr.Recording) stageSource {
	return func(stage int) ([]jfr.Event, flame.Stacks, []byte, string) {
		s.mu.Lock()
		w, ok := s.windows[stage]
		s.mu.Unlock()
		if !ok {
			return nil, nil, nil, "the stage's start was not seen, so the recording could not be cut to it"
		}
		cut := jfr.Cut(rec.Events, w)
		return cut, jfr.ExecutionStacks(cut), nil, ""
	}
}

// readProfiles gives each stage its CPU profile.
func (s *Session) readProfiles(in *bench.Inside) stageSource {
	cost := &bench.InsideCost{}
	s.mu.Lock()
	for _, p := range s.profiles {
		cost.Bytes += int64(len(p.raw))
		cost.Events += p.p.Samples()
	}
	s.mu.Unlock()
	in.Cost = cost
	return func(stage int) ([]jfr.Event, flame.Stacks, []byte, string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		p, ok := s.profiles[stage]
		if !ok {
			why := s.missed[stage]
			if why == "" {
				why = "the stage was not profiled"
			}
			return nil, nil, nil, "no CPU profile of the stage: " + why
		}
		return nil, p.p.Stacks(), p.raw, ""
	}
}

// noRecording marks in as without a recording, and why.
func (s *Session) noRecording(in *bench.Inside, why string) stageSource {
	in.Source, in.NoProfile = "", why
	return nil
}

// whyNoRecording says why a container held no recording, quoting what
// the JVM said about its flight recorder ("Flight Recorder is disabled.").
func (s *Session) whyNoRecording(ctx context.Context, err error) string {
	why := "no recording could be copied out of the container: " + err.Error()
	if !errors.Is(err, jfr.ErrNoRecording) {
		return why
	}
	logs, _ := s.target.Logs(ctx, 0)
	if said := jfrLines(logs); said != "" {
		why += "; the JVM said: " + said
	}
	return why
}

// jfrLines returns what a log says about the flight recorder, at most
// three lines, JAVA_TOOL_OPTIONS' echo left out.
func jfrLines(logs string) string {
	var out []string
	for _, l := range strings.Split(logs, "\n") {
		l = strings.TrimSpace(l)
		low := strings.ToLower(l)
		if (strings.Contains(low, "jfr") || strings.Contains(low, "flight record")) && !strings.HasPrefix(l, "Picked up") {
			out = append(out, l)
		}
	}
	return strings.Join(out[:min(len(out), 3)], " / ")
}

// tool returns the tool given, else the host's jfr, else the one in the
// target's image.
func (s *Session) tool(given *jfr.Tool) jfr.Tool {
	if given != nil {
		return *given
	}
	if t, err := jfr.FindTool(); err == nil {
		return t
	}
	return jfr.FuncTool("jfr in the target's image", s.target.RunJFR)
}

// readingNotes say what the reading left out to keep within its budget.
func readingNotes(rec *jfr.Recording) []string {
	var notes []string
	for _, typ := range slices.Sorted(maps.Keys(rec.Skipped)) {
		notes = append(notes, fmt.Sprintf("%s: %d events not read, beyond the reading budget", typ, rec.Skipped[typ]))
	}
	if d, ok := rec.Depths[jfr.TypeExecutionSample]; ok && d < jfr.RecorderDepth {
		notes = append(notes, fmt.Sprintf("CPU samples read %d frames deep (the reading budget): flame graphs stop there", d))
	}
	return notes
}

// keepFile keeps a file in the store.
func (s *Session) keepFile(ctx context.Context, c Collection, in *bench.Inside, a bench.Artifact, file string) {
	f, err := os.Open(file)
	if err != nil {
		in.Notes = append(in.Notes, fmt.Sprintf("%s not kept: %v", a.Kind, err))
		return
	}
	defer f.Close()
	s.keep(ctx, c, in, a, f)
}

// keep keeps a file in the store and lists it in in.Files; a file the
// store refuses (beyond its bounds) is noted instead.
func (s *Session) keep(ctx context.Context, c Collection, in *bench.Inside, a bench.Artifact, r io.Reader) {
	if c.Store == nil {
		return
	}
	if err := c.Store.SaveArtifact(ctx, c.RunID, a, r); err != nil {
		in.Notes = append(in.Notes, fmt.Sprintf("%s not kept: %s", a.FileName(), bench.ErrorMessage(err)))
		return
	}
	in.Files = append(in.Files, a)
}

// workDir returns dir, made if need be, or a new temporary directory.
func workDir(dir string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", "threadbench-recording-")
	}
	return os.MkdirTemp(dir, "recording-")
}

// measured returns a result's measured stages (its warm-up left out).
func measured(tr *bench.TargetResult) []bench.StageResult {
	var out []bench.StageResult
	for _, st := range tr.Stages {
		if !st.Warmup {
			out = append(out, st)
		}
	}
	return out
}

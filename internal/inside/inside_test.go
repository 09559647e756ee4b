package inside

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jfr"
	"github.com/threadbench/threadbench/internal/jmcrules"
)

// fakeTarget is a target that records inside: a JVM whose recording
// CopyRecording writes, or a Go service whose profile is at url.
type fakeTarget struct {
	bench.Target
	info      bench.InsideInfo
	recording []byte // nil: no recording in the container
	logs      string
	halted    bool
}

func (f *fakeTarget) Inside() bench.InsideInfo                  { return f.info }
func (f *fakeTarget) Halt(context.Context) error                { f.halted = true; return nil }
func (f *fakeTarget) Logs(context.Context, int) (string, error) { return f.logs, nil }
func (f *fakeTarget) CopyThreadSamples(context.Context, string) (int64, error) {
	return 0, errors.New("the fake keeps no thread samples")
}

func (f *fakeTarget) CopyRecording(_ context.Context, dst string) (int64, error) {
	if f.recording == nil {
		return 0, jfr.ErrNoRecording
	}
	return int64(len(f.recording)), os.WriteFile(dst, f.recording, 0o644)
}
func (f *fakeTarget) RunJFR(context.Context, io.Writer, string, ...string) error {
	return fmt.Errorf("no jfr in this image")
}

// memStore keeps artifacts in memory.
type memStore struct {
	mu    sync.Mutex
	files map[string][]byte
}

func (m *memStore) SaveArtifact(_ context.Context, _ string, a bench.Artifact, r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if int64(len(b)) != a.Bytes {
		return fmt.Errorf("%s: %d bytes, said %d", a.Path(), len(b), a.Bytes)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = map[string][]byte{}
	}
	m.files[a.Path()] = b
	return nil
}
func (m *memStore) Artifacts(context.Context, string) ([]bench.Artifact, error) { return nil, nil }
func (m *memStore) WriteArtifact(context.Context, string, bench.Artifact, io.Writer) error {
	return nil
}

// fixtureTool answers jfr summary and jfr print from the jfr package's
// fixture: a JDK 21 recording of virtual threads pinned in synchronized.
func fixtureTool(t *testing.T) *jfr.Tool {
	summary, err := os.ReadFile("../jfr/testdata/summary.txt")
	if err != nil {
		t.Fatal(err)
	}
	events, err := os.ReadFile("../jfr/testdata/pinned21.json")
	if err != nil {
		t.Fatal(err)
	}
	tool := jfr.FuncTool("fixture", func(_ context.Context, stdout io.Writer, _ string, args ...string) error {
		switch {
		case args[0] == "summary":
			_, err = stdout.Write(summary)
		case strings.Contains(strings.Join(args, " "), jfr.TypeVirtualThreadPinned):
			_, err = stdout.Write(events)
		default:
			_, err = io.WriteString(stdout, `{"recording": {"events": []}}`)
		}
		return err
	})
	return &tool
}

// The fixture's pins fall in 2026-11-26T17:00:12.36-12.42, its samples
// up to 12.61, its one GC at 15.36.
var fixtureFrom = time.Date(2026, 11, 26, 17, 0, 12, 350e6, time.UTC)

func stage(index int, offset, d time.Duration) bench.StageResult {
	return bench.StageResult{Index: index, StartOffset: bench.Duration(offset), Duration: bench.Duration(d),
		Stats: bench.Stats{Successes: 400, Throughput: 100, Latency: bench.Latency{Mean: 200}}}
}

// A JVM's recording is read after it halts, cut to each stage's window,
// diagnosed and kept: the stage the pins fell in is pinned in the fixture's
// synchronized method, the stage after it is not.
func TestCollectRecording(t *testing.T) {
	target := &fakeTarget{info: bench.InsideInfo{Source: bench.ProfileJFR, OwnPrefix: "Pin"}, recording: []byte("a recording")}
	s := Open(target, false)
	stages := []bench.StageResult{stage(0, 0, 300*time.Millisecond), stage(1, 300*time.Millisecond, 4*time.Second)}
	s.stageBegins(stages[0], fixtureFrom)
	s.stageBegins(stages[1], fixtureFrom.Add(300*time.Millisecond))
	tr := &bench.TargetResult{Target: "orders@virtual", Image: bench.ImageInfo{Runtime: "OpenJDK 21.0.8+9"},
		Limits: bench.Limits{CPUs: 1}, Stages: stages}
	store := &memStore{}
	score := 100.0
	jmc := func(_ context.Context, recording string) (*jmcrules.Result, error) {
		if b, err := os.ReadFile(recording); err != nil || string(b) != "a recording" {
			return nil, fmt.Errorf("JMC given %q: %v", b, err)
		}
		return &jmcrules.Result{Version: "9.1.0", Rules: []jmcrules.Rule{{ID: "JavaBlocking", Severity: jmcrules.SeverityWarning, Score: &score, Summary: "blocked"},
			{ID: "GcOptions", Severity: jmcrules.SeverityOK}, {ID: "HeapDump", Severity: jmcrules.SeverityNA}}}, nil
	}
	in := s.Collect(context.Background(), Collection{RunID: "r1", Result: tr, Store: store, Dir: t.TempDir(), Tool: fixtureTool(t), JMC: jmc})

	// JMC's rules ran on the recording copied out; its blocking warning
	// is no stage's verdict (pinned, not lock-bound), which is said.
	if j := in.JMC; j == nil || j.Error != "" || len(j.Rules) != 1 || j.OK != 1 || len(j.Disagree) != 1 || !strings.Contains(j.Disagree[0], "JMC warns JavaBlocking (score 100: blocked)") {
		t.Errorf("JMC %+v, want its one warning, one rule OK, and the disagreement", in.JMC)
	}
	if !target.halted {
		t.Error("the JVM was not halted before its recording was copied")
	}
	if in.Source != bench.ProfileJFR || in.NoProfile != "" || in.JDK != 21 {
		t.Errorf("inside: source %q (%s), JDK %d; want jfr on 21", in.Source, in.NoProfile, in.JDK)
	}
	if len(in.Why) != 2 {
		t.Fatalf("%d diagnoses, want one per stage", len(in.Why))
	}
	first, second := in.Why[0], in.Why[1]
	t.Logf("stage 0: %+v", first.Causes)
	if len(first.Causes) == 0 || first.Causes[0].Kind != bench.VerdictPinned || !strings.Contains(first.Causes[0].Sentence, "Pin.legacyCall") {
		t.Errorf("stage 0: causes %+v, want pinned in Pin.legacyCall first", first.Causes)
	}
	for _, c := range second.Causes {
		if c.Kind == bench.VerdictPinned {
			t.Errorf("stage 1: pinned, though no pin fell in it: %s", c.Sentence)
		}
	}
	if in.Cost == nil || in.Cost.Bytes != int64(len(target.recording)) || in.Cost.Events == 0 {
		t.Errorf("cost %+v, want the recording's size and the events read", in.Cost)
	}
	if got := string(store.files["targets/orders@virtual/recording.jfr"]); got != "a recording" {
		t.Errorf("recording kept as %q", got)
	}
	if folded := string(store.files["targets/orders@virtual/stages/0/stacks.folded"]); !strings.Contains(folded, ";") {
		t.Errorf("stage 0's samples kept folded as %q", folded)
	}
	if len(in.Files) != 2 {
		t.Errorf("files %+v, want the recording and stage 0's samples", in.Files)
	}
}

// A container without a recording says why, in the JVM's own words.
func TestCollectNoRecording(t *testing.T) {
	target := &fakeTarget{info: bench.InsideInfo{Source: bench.ProfileJFR}, logs: "Picked up JAVA_TOOL_OPTIONS: -XX:StartFlightRecording=...\nFlight Recorder is disabled.\nStarted\n"}
	s := Open(target, false)
	s.stageBegins(stage(0, 0, time.Second), time.Now())
	tr := &bench.TargetResult{Target: "app", Stages: []bench.StageResult{stage(0, 0, time.Second)}}
	in := s.Collect(context.Background(), Collection{Result: tr, Dir: t.TempDir(), Tool: fixtureTool(t)})
	if in.Source != "" || !strings.Contains(in.NoProfile, "Flight Recorder is disabled.") || strings.Contains(in.NoProfile, "Picked up") {
		t.Errorf("inside: source %q, no profile %q; want none, quoting the JVM", in.Source, in.NoProfile)
	}
	if len(in.Why) != 1 || in.Why[0].NoProfile != in.NoProfile {
		t.Errorf("diagnoses %+v, want the stage's saying why it has no recording", in.Why)
	}
}

// Recording turned off: nothing is halted or read, and each stage is still
// diagnosed from what was measured around the target.
func TestCollectOff(t *testing.T) {
	target := &fakeTarget{info: bench.InsideInfo{Source: bench.ProfileJFR}, recording: []byte("x")}
	s := Open(target, true)
	tr := &bench.TargetResult{Target: "java-virtual", Stages: []bench.StageResult{stage(0, 0, time.Second)}}
	tr.Stages[0].Flags = []bench.Flag{{Kind: bench.FlagGeneratorBound, Reason: "generator CPU 97%"}}
	in := s.Collect(context.Background(), Collection{Result: tr})
	if target.halted || in.Source != "" || !in.Off || in.NoProfile != OffReason {
		t.Errorf("halted %v; inside %+v; want nothing recorded, off", target.halted, in)
	}
	if len(in.Why) != 1 || len(in.Why[0].Causes) != 1 || in.Why[0].Causes[0].Kind != bench.FlagGeneratorBound {
		t.Errorf("diagnoses %+v, want the stage's generator-bound flag", in.Why)
	}
}

// work hashes for d: a CPU-bound function of this test's own.
func work(d time.Duration) {
	sum := sha256.Sum256(nil)
	for end := time.Now().Add(d); time.Now().Before(end); {
		sum = sha256.Sum256(sum[:])
	}
}

// A Go service's stages are profiled as they begin, through its own
// net/http/pprof (this test process's), one after the other: the work
// going on is in the profile, and both the profile and the samples folded
// are kept per stage.
func TestCollectProfiles(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	target := &fakeTarget{info: bench.InsideInfo{Source: bench.ProfilePprof, ProfileURL: srv.URL + "/debug/pprof/profile",
		OwnPrefix: "github.com/threadbench/threadbench/internal/inside."}}
	s := Open(target, false)
	obs := s.Observe(bench.Observer{})
	// Stage 0 lasts 3 s: its profile is of the whole seconds left when the
	// profiling goroutine gets to it, and a clean clone's side phase (the
	// integration tests' JVMs beside it) once left none of 2 s.
	stages := []bench.StageResult{stage(0, 0, 3*time.Second), stage(1, 3*time.Second, 1500*time.Millisecond),
		stage(2, 4500*time.Millisecond, 800*time.Millisecond)}
	for _, st := range stages {
		obs.Stage(st)
		work(st.Duration.D())
	}
	tr := &bench.TargetResult{Target: bench.TargetGo, Limits: bench.Limits{CPUs: 1}, Stages: stages}
	store := &memStore{}
	in := s.Collect(context.Background(), Collection{RunID: "r1", Result: tr, Store: store})
	if in.Source != bench.ProfilePprof || len(in.Why) != 3 {
		t.Fatalf("inside %+v, want three stages diagnosed", in)
	}
	first := in.Why[0]
	t.Logf("stage 0: %d samples, own %v, top %v", first.Samples, first.OwnFrames, first.TopFrames)
	if first.Samples == 0 || len(first.OwnFrames) == 0 || first.OwnFrames[0].Frame != "github.com/threadbench/threadbench/internal/inside.work" {
		t.Errorf("stage 0: own frames %v of %d samples, want this test's work function first", first.OwnFrames, first.Samples)
	}
	// The second stage's profile began when the first's ended, and ran
	// for the whole second left of it; the third had under a second.
	if second := in.Why[1]; second.Source != bench.ProfilePprof || second.Samples == 0 {
		t.Errorf("stage 1: source %q (%s), %d samples; want its last whole second profiled", second.Source, second.NoProfile, second.Samples)
	}
	if third := in.Why[2]; third.Source != "" || !strings.Contains(third.NoProfile, "less than a second") {
		t.Errorf("stage 2: source %q (%s), want no profile: under a second of it", third.Source, third.NoProfile)
	}
	for _, path := range []string{"targets/go/stages/0/profile.pb.gz", "targets/go/stages/0/stacks.folded", "targets/go/stages/1/profile.pb.gz"} {
		if len(store.files[path]) == 0 {
			t.Errorf("%s not kept", path)
		}
	}
	if in.Cost == nil || in.Cost.Bytes == 0 {
		t.Errorf("cost %+v, want the profiles' size", in.Cost)
	}
}

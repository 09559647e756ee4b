package jfr_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jfr"
)

// fixture decodes testdata/pinned21.json: events `jfr print --json
// --stack-depth 6` printed from a JDK 21 recording of virtual threads that
// sleep inside synchronized (Pin.legacyCall), trimmed to a few of each
// type and stripped of the class loaders and modules the decoder skips.
func fixture(t *testing.T) []jfr.Event {
	t.Helper()
	f, err := os.Open("testdata/pinned21.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, err := jfr.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

func TestDecode(t *testing.T) {
	events := fixture(t)
	counts := map[string]int{}
	for _, e := range events {
		counts[e.Type]++
	}
	want := map[string]int{jfr.TypeThreadPark: 1, jfr.TypeVirtualThreadPinned: 2, jfr.TypeMonitorEnter: 2, jfr.TypeExecutionSample: 3, jfr.TypeGarbageCollection: 1}
	for typ, n := range want {
		if counts[typ] != n {
			t.Errorf("%d %s events, want %d", counts[typ], typ, n)
		}
	}
	if !slices.IsSortedFunc(events, func(a, b jfr.Event) int { return a.Start.Compare(b.Start) }) {
		t.Error("events are not sorted by start")
	}
	// A hidden class (Pin$$Lambda+0x0000000800140000/1288235781) is named
	// without the address and number of that one class.
	lambdas := 0
	for _, e := range events {
		for _, f := range e.Stack {
			if strings.Contains(f.Class, "+0x") {
				t.Errorf("frame %s keeps its hidden class's address", f)
			}
			if f.Class == "Pin$$Lambda" {
				lambdas++
			}
		}
	}
	if lambdas == 0 {
		t.Error("no frame of the fixture's lambda (Pin$$Lambda)")
	}

	pinned := jfr.OfType(events, jfr.TypeVirtualThreadPinned)[0]
	if got, want := pinned.Duration, 23961274*time.Nanosecond; got != want {
		t.Errorf("pinned duration = %v, want %v", got, want)
	}
	if !pinned.Thread.Virtual || pinned.Thread.ID != 25 {
		t.Errorf("pinned thread = %+v, want virtual thread 25", pinned.Thread)
	}
	if got, ok := pinned.Culprit(); !ok || got.String() != "Pin.legacyCall:4" {
		t.Errorf("pinned culprit = %v, %v; want Pin.legacyCall:4", got, ok)
	}
	if got, want := pinned.StackStrings()[0], "java.lang.VirtualThread.parkOnCarrierThread"; got != want {
		t.Errorf("innermost frame = %q, want %q (no line: the JDK's classes have none here)", got, want)
	}

	enter := jfr.OfType(events, jfr.TypeMonitorEnter)[0]
	if got := enter.Fields["monitorClass"]; got != "java.lang.Object" {
		t.Errorf("monitorClass = %q, want java.lang.Object", got)
	}
	gc := jfr.OfType(events, jfr.TypeGarbageCollection)[0]
	if gc.Fields["name"] != "G1Full" || gc.Fields["cause"] != "System.gc()" || gc.Pause != 15759645*time.Nanosecond {
		t.Errorf("GC event = name %q cause %q pause %v, want G1Full, System.gc(), 15.759645ms", gc.Fields["name"], gc.Fields["cause"], gc.Pause)
	}
	sample := jfr.OfType(events, jfr.TypeExecutionSample)[0]
	if sample.Duration != 0 || sample.Fields["state"] != "STATE_RUNNABLE" || sample.Stack[0].Kind != "JIT compiled" {
		t.Errorf("execution sample = %+v", sample)
	}
}

func TestSleep(t *testing.T) {
	park := jfr.OfType(fixture(t), jfr.TypeThreadPark)[0]
	if !park.Sleep() {
		t.Error("a virtual thread's park under Thread.sleep is not a sleep")
	}
	enter := jfr.OfType(fixture(t), jfr.TypeMonitorEnter)[0]
	if enter.Sleep() {
		t.Error("a monitor enter is a sleep")
	}
}

func TestIdle(t *testing.T) {
	frames := func(names ...string) []jfr.Frame {
		var out []jfr.Frame
		for _, n := range names {
			i := strings.LastIndexByte(n, '.')
			out = append(out, jfr.Frame{Class: n[:i], Method: n[i+1:]})
		}
		return out
	}
	tests := []struct {
		name  string
		stack []jfr.Frame
		idle  bool
	}{
		{"TomcatWorker", frames("jdk.internal.misc.Unsafe.park", "java.util.concurrent.LinkedBlockingQueue.take", "org.apache.tomcat.util.threads.ThreadPoolExecutor.getTask"), true},
		{"Executor", frames("jdk.internal.misc.Unsafe.park", "java.util.concurrent.ThreadPoolExecutor.getTask"), true},
		{"Cleaner", frames("jdk.internal.misc.Unsafe.park", "java.lang.ref.ReferenceQueue.await", "java.lang.ref.ReferenceQueue.remove", "jdk.internal.ref.CleanerImpl.run"), true},
		{"Carrier", frames("jdk.internal.misc.Unsafe.park", "java.util.concurrent.ForkJoinPool.awaitWork", "java.util.concurrent.ForkJoinPool.runWorker"), true},
		{"LockWait", frames("jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.ReentrantLock.lock", "com.zaxxer.hikari.pool.HikariPool.getConnection"), false},
	}
	for _, tt := range tests {
		if got := (jfr.Event{Type: jfr.TypeThreadPark, Stack: tt.stack}).Idle(); got != tt.idle {
			t.Errorf("%s: Idle() = %v, want %v", tt.name, got, tt.idle)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct{ name, in, err string }{
		{"ErrNotJSON", "Error: file not found", "jfr print output"},
		{"ErrWrongShape", `{"events":[]}`, "want recording"},
		{"ErrNoStart", `{"recording":{"events":[{"type":"jdk.X","values":{}}]}}`, "event 1 (jdk.X): startTime"},
		{"ErrBadDuration", `{"recording":{"events":[{"type":"jdk.X","values":{"startTime":"2026-01-01T00:00:00Z","duration":"5 s"}}]}}`, "duration"},
		{"ErrCut", `{"recording":{"events":[{"type":"jdk.X","values":{"startTime":"2026-01-01T00:00:00Z"}}`, "jfr print output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jfr.Decode(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Decode() error = %v, want one containing %q", err, tt.err)
			}
		})
	}
}

func TestParseISODuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{in: "PT0S", want: 0},
		{in: "PT0.023961274S", want: 23961274 * time.Nanosecond},
		{in: "PT1M2.5S", want: 62500 * time.Millisecond},
		// 8376227.9999... ns in floating point: rounded, not cut
		{in: "PT0.008376228S", want: 8376228 * time.Nanosecond},
		{in: "PT2H", want: 2 * time.Hour},
		{in: "PT-0.5S", want: -500 * time.Millisecond},
		{in: "P1D", err: true}, // jfr writes no days
		{in: "PT", err: true},
		{in: "PTxS", err: true},
		{in: "0.5", err: true},
	}
	for _, tt := range tests {
		got, err := jfr.ParseISODuration(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseISODuration(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestCut(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ev := func(name string, startMs, durMs int) jfr.Event {
		return jfr.Event{Type: name, Start: at(startMs), Duration: time.Duration(durMs) * time.Millisecond}
	}
	events := []jfr.Event{
		ev("before", 0, 500),        // ends before the window
		ev("spans-start", 800, 400), // 200 ms inside
		ev("instant-before", 999, 0),
		ev("inside", 1100, 100),
		ev("instant", 1500, 0),
		ev("spans-end", 1900, 300), // 100 ms inside
		ev("after", 2000, 10),
	}
	got := jfr.Cut(events, jfr.Window{From: at(1000), To: at(2000)})
	want := map[string]time.Duration{"spans-start": 200 * time.Millisecond, "inside": 100 * time.Millisecond, "instant": 0, "spans-end": 100 * time.Millisecond}
	if len(got) != len(want) {
		t.Fatalf("Cut kept %d events, want %d: %v", len(got), len(want), got)
	}
	for _, e := range got {
		if d, ok := want[e.Type]; !ok || e.Duration != d {
			t.Errorf("%s: kept %v, want %v (in the window: %v)", e.Type, e.Duration, d, ok)
		}
		if e.Start.Before(at(1000)) {
			t.Errorf("%s starts before the window", e.Type)
		}
	}
}

func TestStageWindows(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	stages := []bench.StageResult{
		{Index: 0, StartOffset: bench.Duration(0), Duration: bench.Duration(10 * time.Second)},
		{Index: 1, StartOffset: bench.Duration(10 * time.Second), Duration: bench.Duration(5 * time.Second)},
	}
	got := jfr.StageWindows(t0, stages)
	if len(got) != 2 || !got[1].From.Equal(t0.Add(10*time.Second)) || got[1].Seconds() != 5 || got[1].Stage != 1 {
		t.Errorf("StageWindows() = %+v", got)
	}
}

func TestExecutionStacks(t *testing.T) {
	stacks := jfr.ExecutionStacks(fixture(t))
	if stacks.Total() != 3 || len(stacks) != 1 {
		t.Fatalf("stacks = %v, want the 3 samples in one stack", stacks)
	}
	frames := stacks[0].Frames
	if frames[0] != "java.lang.VirtualThread.run" || frames[len(frames)-1] != "Pin.burn" {
		t.Errorf("frames = %v, want root java.lang.VirtualThread.run, leaf Pin.burn", frames)
	}
	if top := stacks.Top(1); top[0].Frame != "Pin.burn" || top[0].Self != 3 {
		t.Errorf("Top(1) = %v, want Pin.burn with 3 self samples", top)
	}
}

func TestOptions(t *testing.T) {
	s := jfr.DefaultSettings()
	opts := strings.Join(s.Options(), " ")
	for _, want := range []string{
		"-XX:StartFlightRecording=", "dumponexit=true", "filename=" + jfr.Path,
		"jdk.VirtualThreadPinned#threshold=1ms", "jdk.JavaMonitorEnter#threshold=1ms", "jdk.ThreadPark#threshold=10ms",
		"jdk.ExecutionSample#period=20ms", "jdk.VirtualThreadSubmitFailed#enabled=true", "jdk.GarbageCollection#enabled=true",
	} {
		if !strings.Contains(opts, want) {
			t.Errorf("options lack %q:\n%s", want, opts)
		}
	}
	if n := len(strings.Fields(opts)); n != 2 {
		t.Errorf("options split into %d words on spaces, want 2: JAVA_TOOL_OPTIONS splits on spaces", n)
	}
	s.Pinned = 1500 * time.Microsecond
	if got := strings.Join(s.Options(), " "); !strings.Contains(got, "VirtualThreadPinned#threshold=2ms") {
		t.Errorf("a 1.5 ms threshold should round up to 2ms: %s", got)
	}
	if got := s.ToolOptions("-Xss512k"); !strings.HasPrefix(got, "-Xss512k -Xlog:jfr+startup=off -XX:StartFlightRecording=") {
		t.Errorf("ToolOptions keeps the image's options first: %s", got)
	}
}

func TestSettingsValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*jfr.Settings)
		err    string
	}{
		{"OK", func(*jfr.Settings) {}, ""},
		{"ErrNegativeThreshold", func(s *jfr.Settings) { s.MonitorEnter = -1 }, "monitorEnter"},
		{"ErrPeriod", func(s *jfr.Settings) { s.SamplePeriod = time.Microsecond }, "sample period"},
		{"ErrSize", func(s *jfr.Settings) { s.MaxSize = 10 }, "max size"},
		{"ErrPathComma", func(s *jfr.Settings) { s.Path = "/tmp/a,b.jfr" }, "path"},
		{"ErrPathRelative", func(s *jfr.Settings) { s.Path = "r.jfr" }, "path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := jfr.DefaultSettings()
			tt.change(&s)
			err := s.Validate()
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("Validate() = %v, want %q", err, tt.err)
			}
		})
	}
}

// fakeCopier serves a tar archive, or an error, as the engine would.
type fakeCopier struct {
	archive []byte
	err     error
}

func (f fakeCopier) CopyFromContainer(context.Context, string, client.CopyFromContainerOptions) (client.CopyFromContainerResult, error) {
	if f.err != nil {
		return client.CopyFromContainerResult{}, f.err
	}
	return client.CopyFromContainerResult{Content: io.NopCloser(bytes.NewReader(f.archive))}, nil
}

// archive returns a tar archive of one file.
func archive(t *testing.T, name string, body []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write(body)
	tw.Close()
	return buf.Bytes()
}

func TestCopy(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "r.jfr")
	t.Run("OK", func(t *testing.T) {
		n, err := jfr.Copy(context.Background(), fakeCopier{archive: archive(t, "threadbench.jfr", []byte("FLR\x00data"))}, "c1", jfr.Path, dst)
		if err != nil || n != 8 {
			t.Fatalf("Copy() = %d, %v", n, err)
		}
		if got, _ := os.ReadFile(dst); string(got) != "FLR\x00data" {
			t.Errorf("copied %q", got)
		}
	})
	t.Run("ErrNoFile", func(t *testing.T) {
		_, err := jfr.Copy(context.Background(), fakeCopier{err: cerrdefs.ErrNotFound}, "c1", jfr.Path, dst)
		if !errors.Is(err, jfr.ErrNoRecording) {
			t.Errorf("Copy() error = %v, want ErrNoRecording", err)
		}
	})
	t.Run("ErrEmpty", func(t *testing.T) {
		_, err := jfr.Copy(context.Background(), fakeCopier{archive: archive(t, "threadbench.jfr", nil)}, "c1", jfr.Path, dst)
		if !errors.Is(err, jfr.ErrNoRecording) {
			t.Errorf("Copy() error = %v, want ErrNoRecording", err)
		}
	})
	t.Run("ErrOtherFile", func(t *testing.T) {
		_, err := jfr.Copy(context.Background(), fakeCopier{archive: archive(t, "other", []byte("x"))}, "c1", jfr.Path, dst)
		if !errors.Is(err, jfr.ErrNoRecording) {
			t.Errorf("Copy() error = %v, want ErrNoRecording", err)
		}
	})
}

func TestParseSummary(t *testing.T) {
	out, err := os.ReadFile("testdata/summary.txt")
	if err != nil {
		t.Fatal(err)
	}
	counts, err := jfr.ParseSummary(string(out))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{jfr.TypeThreadPark: 523, jfr.TypeVirtualThreadPinned: 248, jfr.TypeSubmitFailed: 0, jfr.TypeExecutionSample: 145, jfr.TypeMonitorEnter: 45, jfr.TypeGarbageCollection: 20}
	for typ, n := range want {
		if got, ok := counts[typ]; !ok || got != n {
			t.Errorf("%s: %d (listed %v), want %d", typ, got, ok, n)
		}
	}
	if _, err := jfr.ParseSummary("Error: no such file"); err == nil {
		t.Error("a summary without a table parsed")
	}
}

func TestPlan(t *testing.T) {
	const mb = 1 << 20
	counts := map[string]int64{jfr.TypeVirtualThreadPinned: 250, jfr.TypeMonitorEnter: 50, jfr.TypeGarbageCollection: 20,
		jfr.TypeExecutionSample: 20000, jfr.TypeThreadPark: 400000}
	tests := []struct {
		name    string
		budget  int64
		depths  map[string]int
		skipped map[string]int64
	}{
		// room for everything at full depth
		{"Ample", 1 << 40, map[string]int{jfr.TypeVirtualThreadPinned: 64, jfr.TypeMonitorEnter: 64, jfr.TypeGarbageCollection: 64, jfr.TypeExecutionSample: 64, jfr.TypeThreadPark: 64}, map[string]int64{}},
		// the default: the rare events whole (51.5 + 10.3 MB), the samples
		// cut to 8 frames (536 MB; 16 would take 1048 of the 1012 left),
		// the flood of parks left out (1.76 GB even at depth 1)
		{"Default", jfr.DefaultBudget, map[string]int{jfr.TypeVirtualThreadPinned: 64, jfr.TypeMonitorEnter: 64, jfr.TypeGarbageCollection: 64, jfr.TypeExecutionSample: 8}, map[string]int64{jfr.TypeThreadPark: 400000}},
		// 16 MB: the pinned events at 16 frames (13.1 MB), the monitor
		// enters too (2.6 MB), the GCs (no stack), nothing else
		{"Small", 16 * mb, map[string]int{jfr.TypeVirtualThreadPinned: 16, jfr.TypeMonitorEnter: 16, jfr.TypeGarbageCollection: 64}, map[string]int64{jfr.TypeExecutionSample: 20000, jfr.TypeThreadPark: 400000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			depths, skipped := jfr.Plan(counts, tt.budget)
			t.Logf("depths %v, skipped %v", depths, skipped)
			if len(depths) != len(tt.depths) {
				t.Errorf("depths %v, want %v", depths, tt.depths)
			}
			for typ, d := range tt.depths {
				if depths[typ] != d {
					t.Errorf("%s: depth %d, want %d", typ, depths[typ], d)
				}
			}
			if len(skipped) != len(tt.skipped) {
				t.Errorf("skipped %v, want %v", skipped, tt.skipped)
			}
			for typ, n := range tt.skipped {
				if skipped[typ] != n {
					t.Errorf("skipped %v, want %v", skipped, tt.skipped)
				}
			}
		})
	}
}

// TestPrintReadsToTheEnd: a jfr whose output ends in a write of its own
// after the events' closing bracket (the document's closing braces, as a
// real jfr's buffered output may split it) is read to its end, so that
// the tool's writer is not left blocked and Print returns (clean-clone run
// 50 waited 9 minutes there, with jfr itself gone).
func TestPrintReadsToTheEnd(t *testing.T) {
	doc, err := os.ReadFile("testdata/pinned21.json")
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.LastIndexByte(doc, ']') + 1
	tool := jfr.FuncTool("split jfr", func(ctx context.Context, stdout io.Writer, file string, args ...string) error {
		if _, err := stdout.Write(doc[:cut]); err != nil {
			return err
		}
		_, err := stdout.Write(doc[cut:])
		return err
	})
	done := make(chan error, 1)
	go func() {
		events, err := tool.Print(context.Background(), "r.jfr", 6, jfr.TypeVirtualThreadPinned)
		if err == nil && len(events) == 0 {
			err = errors.New("no events")
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Print did not return: the tool's last write was left unread")
	}
}

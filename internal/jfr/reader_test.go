package jfr_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/jdk"
	"github.com/threadbench/threadbench/internal/jfr"
)

// TestMain keeps the readers the tests compile in a cache of their own,
// not in the user's.
func TestMain(m *testing.M) {
	os.Exit(runInCache(m))
}

// testCache is the tests' cache directory: XDG_CACHE_HOME, where the
// reader is compiled (os.UserCacheDir), and where the recording is made.
var testCache string

// runInCache runs the tests with testCache a new temporary directory.
func runInCache(m *testing.M) int {
	var err error
	if testCache, err = os.MkdirTemp("", "jfr-test-cache-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(testCache)
	os.Setenv("XDG_CACHE_HOME", testCache)
	return m.Run()
}

// deepSource is a program whose threads wait, 30 calls below Deep.entry,
// for what main holds: deep-parked for a ReentrantLock (jdk.ThreadPark),
// deep-blocked for a monitor (jdk.JavaMonitorEnter); deep-burning burns
// CPU as deep (jdk.ExecutionSample).
const deepSource = `import java.util.concurrent.locks.ReentrantLock;

public class Deep {
    static final ReentrantLock lock = new ReentrantLock();
    static final Guard guard = new Guard();
    static volatile long sink;

    static final class Guard {}

    static void entry(Runnable bottom) { down(30, bottom); }

    static void down(int n, Runnable bottom) {
        if (n == 0) bottom.run(); else down(n - 1, bottom);
    }

    static void burn(long until) {
        long x = 0;
        while (System.nanoTime() < until) x += x * 31 + 7;
        sink = x;
    }

    public static void main(String[] args) throws Exception {
        long until = System.nanoTime() + 400_000_000L;
        Thread burning = new Thread(() -> entry(() -> burn(until)), "deep-burning");
        Thread parked = new Thread(() -> entry(() -> { lock.lock(); lock.unlock(); }), "deep-parked");
        Thread blocked = new Thread(() -> entry(() -> { synchronized (guard) { sink++; } }), "deep-blocked");
        lock.lock();
        synchronized (guard) {
            burning.start();
            parked.start();
            blocked.start();
            Thread.sleep(400);
        }
        lock.unlock();
        burning.join();
        parked.join();
        blocked.join();
    }
}
`

// deep is the one recording of deepSource that the tests read.
var deep struct {
	once sync.Once
	file string
	err  error
}

// hostTool returns the host's tool, which has a JDK to run the reader on.
// The host must have one: the project's suite skips nothing.
func hostTool(t *testing.T) jfr.Tool {
	t.Helper()
	tool, err := jfr.FindTool()
	if err != nil {
		t.Fatalf("the reader needs a JDK 21+ on the host (install one, e.g. Temurin 25, or set JAVA_HOME): %v", err)
	}
	return tool
}

// printTool returns the host's jfr alone, which reads with `jfr print`.
func printTool(t *testing.T) jfr.Tool {
	t.Helper()
	j, err := jdk.Find()
	if err != nil {
		t.Fatalf("jfr print needs a JDK 21+ on the host: %v", err)
	}
	return jfr.HostTool(j.Tool("jfr"))
}

// deepRecording records deepSource once, with the options a target's JVM
// gets (DefaultSettings), and returns the recording's path.
func deepRecording(t *testing.T) string {
	t.Helper()
	deep.once.Do(func() { deep.file, deep.err = recordDeep() })
	if deep.err != nil {
		t.Fatal(deep.err)
	}
	return deep.file
}

// recordDeep runs deepSource with the java of the host's JDK (the source
// launcher compiles it) and returns where it wrote its recording.
func recordDeep() (string, error) {
	j, err := jdk.Find()
	if err != nil {
		return "", fmt.Errorf("recording a JFR needs a JDK 21+ on the host: %w", err)
	}
	dir := filepath.Join(testCache, "deep")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	src := filepath.Join(dir, "Deep.java")
	if err := os.WriteFile(src, []byte(deepSource), 0o644); err != nil {
		return "", err
	}
	settings := jfr.DefaultSettings()
	settings.Path = filepath.Join(dir, "deep.jfr")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := append(settings.Options(), src)
	if out, err := jdk.Command(ctx, j.Tool("java"), args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("java Deep.java: %w: %s", err, out)
	}
	return settings.Path, nil
}

func TestReadWhole(t *testing.T) {
	t.Parallel()
	// Read reads with the reader alone when the host has a JDK.
	rec, err := jfr.WithoutPrint(hostTool(t)).Read(context.Background(), deepRecording(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Skipped) != 0 {
		t.Errorf("skipped %v, want nothing", rec.Skipped)
	}
	for typ, d := range rec.Depths {
		if d != jfr.RecorderDepth {
			t.Errorf("%s read %d frames deep, want %d", typ, d, jfr.RecorderDepth)
		}
	}
	park := deepEvent(t, rec.Events, jfr.TypeThreadPark, "deep-parked")
	if got := park.Fields["parkedClass"]; got != "java.util.concurrent.locks.ReentrantLock$NonfairSync" {
		t.Errorf("parkedClass = %q, want the lock's ReentrantLock$NonfairSync", got)
	}
	enter := deepEvent(t, rec.Events, jfr.TypeMonitorEnter, "deep-blocked")
	if got := enter.Fields["monitorClass"]; got != "Deep$Guard" {
		t.Errorf("monitorClass = %q, want Deep$Guard", got)
	}
	if got := enter.Fields["previousOwner"]; got != "main" {
		t.Errorf("previousOwner = %q, want main", got)
	}
	sample := deepEvent(t, rec.Events, jfr.TypeExecutionSample, "deep-burning")
	if got := sample.Fields["state"]; got != "STATE_RUNNABLE" {
		t.Errorf("state = %q, want STATE_RUNNABLE", got)
	}
	if !slices.IsSortedFunc(rec.Events, func(a, b jfr.Event) int { return a.Start.Compare(b.Start) }) {
		t.Error("events are not sorted by start")
	}
}

// deepEvent returns the first event of a type on a thread, and checks that
// its stack is whole: it reaches Deep.entry, 30 calls below the wait, and
// the thread's run at its root. A sample is taken from where the thread
// burns (Deep.burn): before entry it may be linking its lambda.
func deepEvent(t *testing.T, events []jfr.Event, typ, thread string) jfr.Event {
	t.Helper()
	for _, e := range events {
		if e.Type != typ || e.Thread.Name != thread {
			continue
		}
		if typ == jfr.TypeExecutionSample && !slices.ContainsFunc(e.Stack, func(f jfr.Frame) bool { return f.Name() == "Deep.burn" }) {
			continue
		}
		if e.Truncated || len(e.Stack) < 33 || !slices.ContainsFunc(e.Stack, func(f jfr.Frame) bool { return f.Name() == "Deep.entry" }) {
			t.Errorf("%s on %s: stack of %d frames (truncated %v) does not reach Deep.entry: %v", typ, thread, len(e.Stack), e.Truncated, e.StackStrings())
		}
		if root := e.Stack[len(e.Stack)-1]; root.Name() != "java.lang.Thread.run" {
			t.Errorf("%s on %s: root frame %s, want java.lang.Thread.run", typ, thread, root)
		}
		return e
	}
	t.Fatalf("no %s event on %s among %d events", typ, thread, len(events))
	return jfr.Event{}
}

// TestReadWholeMatchesPrint: the reader and `jfr print --json` at full
// depth give the same events, field for field.
func TestReadWholeMatchesPrint(t *testing.T) {
	t.Parallel()
	file := deepRecording(t)
	tool := hostTool(t)
	whole, err := tool.ReadWhole(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	printed, err := printTool(t).Read(context.Background(), file, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Events) != len(printed.Events) {
		t.Fatalf("the reader read %d events, jfr print %d", len(whole.Events), len(printed.Events))
	}
	for i, e := range whole.Events {
		p := printed.Events[i]
		if !e.Start.Equal(p.Start) {
			t.Errorf("event %d starts at %v, printed %v", i, e.Start, p.Start)
		}
		e.Start = p.Start // the same instant; the location may differ
		if !reflect.DeepEqual(e, p) {
			t.Errorf("event %d:\n   read %+v\nprinted %+v", i, e, p)
		}
	}
}

func TestReadWholeErrors(t *testing.T) {
	t.Parallel()
	tool := hostTool(t)
	notRecording := filepath.Join(t.TempDir(), "not.jfr")
	if err := os.WriteFile(notRecording, []byte("not a recording"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, file, err string }{
		{"ErrNotARecording", notRecording, "IOException"},
		{"ErrNoFile", filepath.Join(t.TempDir(), "none.jfr"), "No such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tool.Read(context.Background(), tt.file, 0)
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "exit status 1") {
				t.Errorf("Read() error = %v, want the reader's exit and what it said (%q)", err, tt.err)
			}
		})
	}
	t.Run("ErrNoJDK", func(t *testing.T) {
		_, err := printTool(t).ReadWhole(context.Background(), notRecording)
		if err == nil || !strings.Contains(err.Error(), "no host JDK") {
			t.Errorf("ReadWhole() error = %v, want one saying the tool has no JDK", err)
		}
	})
}

// TestReadFallsBack: a reader that cannot be compiled (a JDK without
// javac) leaves the reading to `jfr print`.
func TestReadFallsBack(t *testing.T) {
	printed, err := os.ReadFile("testdata/pinned21.json")
	if err != nil {
		t.Fatal(err)
	}
	summary, err := os.ReadFile("testdata/summary.txt")
	if err != nil {
		t.Fatal(err)
	}
	fixture := jfr.FuncTool("fixture", func(_ context.Context, stdout io.Writer, _ string, args ...string) error {
		if args[0] == "summary" {
			_, err := stdout.Write(summary)
			return err
		}
		_, err := stdout.Write(printed)
		return err
	})
	broken := jdk.JDK{Home: filepath.Join(t.TempDir(), "no-jdk"), Version: "25.0.3", Major: 25}
	rec, err := jfr.WithReader(fixture, broken).Read(context.Background(), "r.jfr", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Events) == 0 || rec.Depths[jfr.TypeVirtualThreadPinned] != jfr.RecorderDepth {
		t.Errorf("read %d events, depths %v: want the fixture's, printed", len(rec.Events), rec.Depths)
	}
}

// TestReadWholeCancel: a reader that waits forever (for a writer to open
// the FIFO it reads) is killed when ctx ends; Read returns once it is gone.
func TestReadWholeCancel(t *testing.T) {
	t.Parallel()
	tool := hostTool(t)
	if _, err := tool.ReadWhole(context.Background(), deepRecording(t)); err != nil {
		t.Fatal(err) // compiles the reader before the clock starts
	}
	fifo := filepath.Join(t.TempDir(), "fifo.jfr")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err := tool.Read(ctx, fifo, 0)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Read() error = %v, want the context's", err)
	}
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("Read took %v after its context ended", took)
	}
}

// TestReaderCache: the reader is compiled once per source and JDK into
// the user's cache, and a second read uses that compilation.
func TestReaderCache(t *testing.T) {
	t.Parallel()
	tool := hostTool(t)
	if _, err := tool.ReadWhole(context.Background(), deepRecording(t)); err != nil {
		t.Fatal(err)
	}
	classes, err := filepath.Glob(filepath.Join(testCache, "threadbench", "jfr-reader", "*", "Reader.class"))
	if err != nil || len(classes) != 1 {
		t.Fatalf("compiled readers in the cache: %v, %v; want one", classes, err)
	}
	before, err := os.Stat(classes[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tool.ReadWhole(context.Background(), deepRecording(t)); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(classes[0])
	if err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the reader was compiled again (%v, %v)", after, err)
	}
}

// TestReaderWithoutCache: without a cache directory that can be written,
// a read compiles the reader in a temporary directory of its own, and
// removes it after.
func TestReaderWithoutCache(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	file := deepRecording(t)
	t.Setenv("XDG_CACHE_HOME", notADir)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	rec, err := hostTool(t).ReadWhole(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Events) == 0 {
		t.Error("no events read")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left %v in the temporary directory", left)
	}
}

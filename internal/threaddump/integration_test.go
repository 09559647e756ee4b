//go:build integration

package threaddump_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/jdk"
	"github.com/threadbench/threadbench/internal/threaddump"
)

// gateSource is a program whose 8 threads (virtual where the JDK has
// them and "virtual" is asked) share a semaphore of 2 permits, each
// holding one for a 20 ms sleep.
const gateSource = `import java.util.concurrent.*;
public class Gate {
  public static void main(String[] a) throws Exception {
    Semaphore s = new Semaphore(2);
    ExecutorService ex = a.length > 0 ? (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null) : Executors.newFixedThreadPool(8);
    for (int i = 0; i < 8; i++) ex.submit(() -> { while (true) { s.acquire(); try { Thread.sleep(20); } finally { s.release(); } } });
    Thread.sleep(1500);
    System.exit(0);
  }
}`

// The sampler's jar, built by the host's JDK, loads in a JVM of 17 (which
// has no virtual threads: it samples platform threads by ThreadMXBean)
// and of 25 (virtual threads, by their dumps), and each writes samples
// whose threads wait for the semaphore most of the time.
func TestSamplerInRealJVMs(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	host, err := jdk.Find()
	if err != nil {
		t.Fatal(err)
	}
	jar, done, err := threaddump.Jar(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	dir := t.TempDir()
	src := filepath.Join(dir, "Gate.java")
	if err := os.WriteFile(src, []byte(gateSource), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(ctx, host.Tool("javac"), "--release", "17", "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		home    string
		virtual bool
	}{{"/usr/lib/jvm/java-17-openjdk-amd64", false}, {host.Home, true}} {
		t.Run(filepath.Base(tc.home), func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(tc.home, "bin", "java")); err != nil {
				t.Fatalf("no JVM at %s: %v", tc.home, err)
			}
			out := filepath.Join(t.TempDir(), "threads.txt")
			args := []string{"-javaagent:" + jar + "=file=" + out + ",period=100,budget=1", "-cp", dir, "Gate"}
			if tc.virtual {
				args = append(args, "virtual")
			}
			if b, err := exec.CommandContext(ctx, filepath.Join(tc.home, "bin", "java"), args...).CombinedOutput(); err != nil {
				t.Fatalf("java: %v\n%s", err, b)
			}
			s := parseFile(t, out)
			if len(s.Samples) < 5 || s.Stopped != "" {
				t.Fatalf("%d samples, stopped %q", len(s.Samples), s.Stopped)
			}
			var waiting, all float64
			for _, ev := range s.Events() {
				if onStack(ev, "Gate.lambda$main$0") && ev.Thread.Virtual == tc.virtual {
					all++
					if onStack(ev, "java.util.concurrent.Semaphore.acquire") {
						waiting++
					}
				}
			}
			if all == 0 || waiting/all < 0.5 {
				t.Errorf("%.0f of %.0f thread samples in Semaphore.acquire (virtual %v): want most", waiting, all, tc.virtual)
			}
			mean, share := s.Cost()
			t.Logf("%s: %d dumps, %.0f thread samples, %s a dump (%.1f %% of a CPU at 100 ms)", s.Java, len(s.Samples), all, mean, 100*share)
		})
	}
}

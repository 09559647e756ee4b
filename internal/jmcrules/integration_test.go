//go:build integration

package jmcrules_test

import (
	"cmp"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
	"github.com/threadbench/threadbench/internal/jmcrules"
)

// contendSource is a program whose 16 threads take turns on one monitor
// and allocate while they hold it, for as many milliseconds as its
// argument says: JMC's Java Blocking rule should warn about it.
const contendSource = `import java.util.ArrayList;
import java.util.List;

public class Contend {
    static final Object lock = new Object();
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        long until = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000L;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            threads.add(new Thread(() -> work(until), "contender-" + i));
        }
        for (Thread t : threads) t.start();
        for (Thread t : threads) t.join();
    }

    static void work(long until) {
        while (System.nanoTime() < until) {
            synchronized (lock) {
                long[] garbage = new long[1024];
                for (int i = 0; i < garbage.length; i++) garbage[i] = i * 31L;
                sink += garbage[garbage.length - 1];
            }
        }
    }
}
`

// recorded makes the tests' recording once: Contend run for 5 s by the
// host's JDK with the profile settings. It lives in the tests' cache
// directory, which TestMain removes.
var recorded = sync.OnceValues(func() (string, error) {
	j, err := jdk.Find()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "recording")
	src := filepath.Join(dir, "Contend.java")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(src, []byte(contendSource), 0o644); err != nil {
		return "", err
	}
	rec := filepath.Join(dir, "contend.jfr")
	out, err := jdk.Command(context.Background(), j.Tool("java"),
		"-XX:StartFlightRecording=filename="+rec+",settings=profile", src, "5000").CombinedOutput()
	if err != nil {
		return "", errors.New(err.Error() + ": " + string(out))
	}
	return rec, nil
})

// recording returns the tests' recording, made the first time.
func recording(t *testing.T) string {
	t.Helper()
	rec, err := recorded()
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	return rec
}

// newAnalyzer returns an Analyzer on the host's JDK that keeps its jars in
// cacheDir.
func newAnalyzer(t *testing.T, cacheDir string) *jmcrules.Analyzer {
	t.Helper()
	a, err := jmcrules.New()
	if err != nil {
		t.Fatal(err)
	}
	a.CacheDir = cacheDir
	return a
}

// warmCache is a cache directory the tests that do not time a first call
// share.
func warmCache() string { return filepath.Join(os.Getenv("XDG_CACHE_HOME"), "warm") }

func TestAnalyze_Integration(t *testing.T) {
	rec := recording(t)
	fi, err := os.Stat(rec)
	if err != nil {
		t.Fatal(err)
	}
	a := newAnalyzer(t, t.TempDir()) // empty: the first call downloads and compiles
	first, err := a.Analyze(t.Context(), rec)
	if err != nil {
		t.Fatal(err)
	}
	again, err := a.Analyze(t.Context(), rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s (%.1f MB) with JMC %s on %s", rec, float64(fi.Size())/1e6, again.Version, again.JDK)
	t.Logf("first call %.2f s (download and compile included), later call %.2f s (load %.2f s, rules %.2f s)",
		first.Seconds, again.Seconds, again.LoadSeconds, again.RulesSeconds)
	checkResult(t, again)
}

// checkResult checks that the rules said what Contend should make them say.
func checkResult(t *testing.T, res *jmcrules.Result) {
	t.Helper()
	if len(res.Rules) < 40 {
		t.Errorf("%d rules, want the 60-odd JMC registers", len(res.Rules))
	}
	for _, r := range res.Rules {
		if r.Error != "" {
			t.Errorf("rule %s failed: %s", r.ID, r.Error)
		}
	}
	for _, w := range res.Warnings() {
		t.Logf("WARNING %s (%s) score %v: %s", w.ID, w.Name, scoreText(w.Score), w.Summary)
	}
	blocking := findRule(res, "JavaBlocking")
	if blocking == nil || blocking.Score == nil || blocking.Severity != jmcrules.SeverityWarning {
		t.Errorf("JavaBlocking = %+v, want a WARNING with a score", blocking)
	}
}

// findRule returns the result of the rule with that ID, nil if none.
func findRule(res *jmcrules.Result, id string) *jmcrules.Rule {
	for i := range res.Rules {
		if res.Rules[i].ID == id {
			return &res.Rules[i]
		}
	}
	return nil
}

// scoreText writes a score, or "none".
func scoreText(score *float64) string {
	if score == nil {
		return "none"
	}
	return strconv.FormatFloat(*score, 'f', 1, 64)
}

func TestAnalyze_Unreadable(t *testing.T) {
	data, err := os.ReadFile(recording(t))
	if err != nil {
		t.Fatal(err)
	}
	half := filepath.Join(t.TempDir(), "half.jfr")
	if err := os.WriteFile(half, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = newAnalyzer(t, warmCache()).Analyze(t.Context(), half)
	if code := bench.ErrorCode(err); code != bench.EINVALID || !strings.Contains(err.Error(), "cannot load") {
		t.Errorf("err = %v (code %q), want an %q saying JMC cannot load it", err, code, bench.EINVALID)
	}
}

func TestAnalyze_Cancel(t *testing.T) {
	rec := recording(t)
	a := newAnalyzer(t, warmCache())
	warm, err := a.Analyze(t.Context(), rec) // also warms the cache
	if err != nil {
		t.Fatal(err)
	}
	// A tenth of a whole run: the JVM has started and is not done.
	whole := time.Duration(warm.Seconds * float64(time.Second))
	ctx, cancel := context.WithTimeout(t.Context(), whole/10)
	defer cancel()
	start := time.Now()
	_, err = a.Analyze(ctx, rec)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's", err)
	}
	// The JVM is killed, not waited for: Analyze returns well before a
	// whole run would have ended.
	if took := time.Since(start); took > whole*9/10 {
		t.Errorf("Analyze returned after %v, a whole run takes %v", took, whole)
	}
}

// TestArtifacts_Published checks the checksums written in Artifacts
// against those the repository publishes beside each jar.
func TestArtifacts_Published(t *testing.T) {
	repo := cmp.Or(os.Getenv(jmcrules.RepositoryEnv), jmcrules.DefaultRepository)
	for _, a := range jmcrules.Artifacts {
		url := repo + "/" + a.Path() + ".sha1"
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s %v", url, resp.Status, err)
		}
		// Some .sha1 files follow the checksum with the file's name.
		if published := strings.Fields(string(body)); len(published) == 0 || published[0] != a.SHA1 {
			t.Errorf("%s: SHA1 %s, but %s says %q", a, a.SHA1, url, body)
		}
	}
}

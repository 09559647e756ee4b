//go:build integration

package jfr_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/diagnosis"
	"github.com/threadbench/threadbench/internal/jfr"
	"github.com/threadbench/threadbench/internal/profiletest"
	"github.com/threadbench/threadbench/internal/targets"
)

// ordersDir is the fixture service (testdata/springapp): its /api/legacy
// blocks inside synchronized, in LegacyDriver$Connection.roundTrip.
const ordersDir = "../../testdata/springapp"

// pinningMethod is the frame JFR must blame for the pins.
const pinningMethod = "com.example.orders.LegacyDriver$Connection.roundTrip"

// TestRecordingFindsPinnedFrame runs the fixture service on virtual threads
// on JDK 21 and on JDK 25 in the project's JRE images, with the recording's
// options in JAVA_TOOL_OPTIONS and nothing else changed, sends its pinning
// request for a few seconds, stops the container (the JVM writes the
// recording as it exits), copies the recording out and reads it with the
// host's jfr: on 21 the pins are there, blamed on the fixture's
// synchronized method, and the diagnosis of the load's window says pinned
// first, naming it; on 25 (JEP 491) there are none, though the recording
// holds the stage's other events, and the diagnosis says nothing pinned.
func TestRecordingFindsPinnedFrame(t *testing.T) {
	jar := fixtureJar(t)
	tool, err := jfr.FindTool()
	if err != nil {
		t.Fatal(err)
	}
	for _, major := range []int{21, 25} {
		t.Run(fmt.Sprintf("JDK%d", major), func(t *testing.T) {
			file, stage, base := recordFixture(t, jar, major)
			checkImageTool(t, tool, file, base)
			served := stage.OK
			start := time.Now()
			rec, err := tool.Read(context.Background(), file, 0)
			if err != nil {
				t.Fatal(err)
			}
			pinned := jfr.OfType(rec.Events, jfr.TypeVirtualThreadPinned)
			t.Logf("JDK %d: %d requests served; %d events read in %v (depths %v, skipped %v): %d pinned, %d monitor enters, %d samples, %d GCs",
				major, served, len(rec.Events), time.Since(start), rec.Depths, rec.Skipped, len(pinned),
				len(jfr.OfType(rec.Events, jfr.TypeMonitorEnter)), len(jfr.OfType(rec.Events, jfr.TypeExecutionSample)),
				len(jfr.OfType(rec.Events, jfr.TypeGarbageCollection)))
			if served == 0 {
				t.Fatal("the fixture served no pinning request")
			}
			if len(jfr.OfType(rec.Events, jfr.TypeExecutionSample)) == 0 {
				t.Fatal("the recording holds no execution sample: it did not record the stage")
			}
			why := diagnose(rec.Events, stage, major)
			for _, c := range why.Causes {
				t.Logf("why: %s", c.Sentence)
			}
			switch major {
			case 21:
				checkPinnedOn(t, pinned, served)
				if len(why.Causes) == 0 || why.Causes[0].Kind != bench.VerdictPinned || !strings.Contains(why.Causes[0].Sentence, pinningMethod) {
					t.Errorf("JDK 21: the diagnosis's first cause is not pinned in %s: %+v", pinningMethod, why.Causes)
				}
			default:
				if len(pinned) != 0 {
					culprit, _ := pinned[0].Culprit()
					t.Errorf("JDK %d: %d pinned events (first in %v), want none: JEP 491 unmounts a virtual thread blocked in synchronized", major, len(pinned), culprit)
				}
				for _, c := range why.Causes {
					if c.Kind == bench.VerdictPinned {
						t.Errorf("JDK %d: the diagnosis says pinned: %s", major, c.Sentence)
					}
				}
			}
		})
	}
}

// checkPinnedOn checks that the pinned events blame the fixture's method:
// most of them, and at least one per ten requests served (each request
// pins once, for its 20 ms, on JDK 21).
func checkPinnedOn(t *testing.T, pinned []jfr.Event, served int64) {
	t.Helper()
	var inMethod int
	var total time.Duration
	for _, e := range pinned {
		total += e.Duration
		if f, ok := e.Culprit(); ok && f.Name() == pinningMethod {
			inMethod++
		}
	}
	t.Logf("pinned %d times for %v in all, %d in %s", len(pinned), total, inMethod, pinningMethod)
	if int64(len(pinned))*10 < served {
		t.Errorf("%d pinned events for %d requests, want about one each", len(pinned), served)
	}
	if 2*inMethod <= len(pinned) {
		t.Errorf("%d of %d pinned events blame %s, want most", inMethod, len(pinned), pinningMethod)
	}
}

// diagnose diagnoses the load's window from the recording's events, as a
// stage of that window on one CPU.
func diagnose(events []jfr.Event, l profiletest.Loaded, major int) bench.Diagnosis {
	w := jfr.Window{Stage: 0, From: l.From, To: l.To}
	cut := jfr.Cut(events, w)
	stage := bench.StageResult{Duration: bench.Duration(l.To.Sub(l.From)), Stats: bench.Stats{
		Successes: l.OK, Throughput: float64(l.OK) / l.Seconds(), Latency: bench.Latency{Mean: l.MeanMs}}}
	return diagnosis.Diagnose(diagnosis.Evidence{Target: "orders@virtual", JDK: major, Stage: stage,
		Limits: bench.Limits{CPUs: 1}, Events: cut, Samples: jfr.ExecutionStacks(cut), Source: bench.ProfileJFR})
}

// checkImageTool counts the recording's events with jfr in the target's
// own image (its JRE has jfr), as a host without a JDK would, and compares
// with the host's.
func checkImageTool(t *testing.T, host jfr.Tool, file, image string) {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	want, err := host.Counts(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	got, err := jfr.ImageTool(cli, image, nil).Counts(context.Background(), file)
	if err != nil {
		t.Fatalf("jfr in %s: %v", image, err)
	}
	for _, typ := range jfr.Types {
		if got[typ] != want[typ] {
			t.Errorf("%s: jfr in %s counts %d, the host's %d", typ, image, got[typ], want[typ])
		}
	}
}

// recordFixture runs the fixture on virtual threads on the JDK major with
// the recording on, loads its pinning endpoint, stops it and returns the
// recording copied out, what the load did and the target's image.
func recordFixture(t *testing.T, jar string, major int) (string, profiletest.Loaded, string) {
	t.Helper()
	own := targets.Own{Name: "orders", Jar: jar, JDK: major}
	entries, err := targets.OwnEntries([]targets.Own{own}, targets.DefaultCatalog().Names())
	if err != nil {
		t.Fatal(err)
	}
	return record(t, targets.DefaultCatalog().With(entries...), "orders@virtual", major, "/api/legacy?delayMs=20", 16)
}

// record builds and runs target from the catalog on the JDK major (0: its
// default) on one CPU with the recording on, sends path from clients for
// three seconds, stops it and returns the recording copied out, what the
// load did and the target's image.
func record(t *testing.T, catalog *targets.Catalog, target string, major int, path string, clients int) (string, profiletest.Loaded, string) {
	t.Helper()
	ctx := context.Background()
	rt, err := targets.NewRuntime(targets.RuntimeOptions{Catalog: catalog})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	img, err := rt.BuildTarget(ctx, target, targets.BuildOptions{JDK: major, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := rt.StartTarget(ctx, target, img, targets.StartOptions{
		RunID:  fmt.Sprintf("test-jfr-%d", time.Now().UnixNano()),
		Limits: bench.Limits{CPUs: 1, MemoryMiB: 1024},
		Env:    map[string]string{jfr.EnvVar: jfr.DefaultSettings().ToolOptions("")},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(context.Background())
	unlock := profiletest.LockHost(t)
	loaded := profiletest.Load(t, inst.BaseURL()+path, clients, 3*time.Second)
	unlock()
	return stopAndCopy(t, inst), loaded, img.Ref
}

// keep copies a recording the test could not read out of its temporary
// directory, for a look after the test, and returns where.
func keep(t *testing.T, file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	dst := filepath.Join(os.TempDir(), fmt.Sprintf("threadbench-%s-%d.jfr", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano()))
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		return err.Error()
	}
	return dst
}

// cpuWorkMethod is the Java target's CPU work, behind /api/cpu.
const cpuWorkMethod = "io.threadbench.server.CpuWork.run"

// TestRecordingFindsCPUWork runs the built-in Java target (platform
// threads, its default JDK) with the recording on and sends its
// CPU-bound endpoint: in most execution samples of the load's window the
// target's own code was in the endpoint's work method (below the filters
// and the controller that call it).
func TestRecordingFindsCPUWork(t *testing.T) {
	tool, err := jfr.FindTool()
	if err != nil {
		t.Fatal(err)
	}
	file, l, _ := record(t, targets.DefaultCatalog(), bench.TargetJavaPlatform, 0, "/api/cpu?work=2000", 4)
	rec, err := tool.Read(context.Background(), file, 0)
	if err != nil {
		t.Fatalf("%v (the recording is kept at %s)", err, keep(t, file))
	}
	cut := jfr.Cut(rec.Events, jfr.Window{From: l.From, To: l.To})
	samples := jfr.ExecutionStacks(cut)
	why := diagnosis.Diagnose(diagnosis.Evidence{Target: bench.TargetJavaPlatform, Samples: samples, Source: bench.ProfileJFR,
		Own: func(f string) bool { return strings.HasPrefix(f, "io.threadbench.") }})
	own := why.OwnFrames
	t.Logf("%d requests; %d samples in the window; top frames %v; the target's own innermost frames %v", l.OK, samples.Total(), samples.Top(3), own)
	if samples.Total() == 0 {
		t.Fatal("no execution samples in the load's window")
	}
	if len(own) == 0 || own[0].Frame != cpuWorkMethod || 2*own[0].Self < samples.Total() {
		t.Errorf("the target's own code was most often in %v (of %d samples), want %s in most", own, samples.Total(), cpuWorkMethod)
	}
}

// stopAndCopy stops the target's container without removing it, as the
// runner must (SIGTERM: the JVM writes its recording as it exits), and
// copies the recording out.
func stopAndCopy(t *testing.T, inst *targets.Instance) string {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	grace := 30
	start := time.Now()
	if _, err := cli.ContainerStop(context.Background(), inst.ContainerID(), client.ContainerStopOptions{Timeout: &grace}); err != nil {
		t.Fatal(err)
	}
	stopped := time.Since(start)
	dst := filepath.Join(t.TempDir(), "recording.jfr")
	n, err := jfr.Copy(context.Background(), cli, inst.ContainerID(), jfr.Path, dst)
	if err != nil {
		logs, _ := inst.Logs(context.Background(), 20)
		t.Fatalf("copy the recording: %v; the target's log ends:\n%s", err, logs)
	}
	t.Logf("stopped in %v; recording %d KiB", stopped, n>>10)
	return dst
}

// fixtureJar returns the fixture's jar, built by make fixtures or, where
// it has not been, here with the fixture's Maven wrapper.
func fixtureJar(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(ordersDir)
	if err != nil {
		t.Fatal(err)
	}
	jar := filepath.Join(dir, "target", "orders.jar")
	if _, err := os.Stat(jar); err == nil {
		return jar
	}
	home, err := exec.Command("bash", "../../scripts/find-jdk.sh").Output()
	if err != nil {
		t.Fatalf("find a JDK to build the fixture: %v", err)
	}
	cmd := exec.Command("./mvnw", "-B", "-q", "-ntp", "package", "-DskipTests")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "JAVA_HOME="+strings.TrimSpace(string(home)))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the fixture (make fixtures): %v\n%s", err, out)
	}
	return jar
}

// testLog sends build progress to the test log.
type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

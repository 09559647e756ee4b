//go:build integration

package targets_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jvmslots"
	"github.com/threadbench/threadbench/internal/targets"
	"github.com/threadbench/threadbench/internal/targets/contracttest"
)

// testWriter sends build progress to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func newRuntime(t *testing.T) *targets.Runtime {
	t.Helper()
	rt, err := targets.NewRuntime(targets.RuntimeOptions{})
	if err != nil {
		t.Fatalf("NewRuntime: %v", err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// runID labels this test's containers apart from anyone else's.
func runID(t *testing.T) string {
	return fmt.Sprintf("test-%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
}

func start(t *testing.T, rt *targets.Runtime, name string, img bench.ImageInfo, opts targets.StartOptions) *targets.Instance {
	t.Helper()
	inst, err := rt.StartTarget(context.Background(), name, img, opts)
	if err != nil {
		t.Fatalf("Start(%s): %v", name, err)
	}
	t.Cleanup(func() { inst.Stop(context.Background()) })
	t.Logf("%s healthy on %s after %s (container %.12s)", name, inst.BaseURL(), inst.Startup(), inst.ContainerID())
	return inst
}

// labelled returns the containers, running or not, with our label and runID.
func labelled(t *testing.T, id string) []string {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	list, err := cli.ContainerList(context.Background(), client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", targets.LabelManaged+"=true", targets.LabelRun+"="+id),
	})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range list.Items {
		ids = append(ids, c.ID)
	}
	return ids
}

func buildGo(t *testing.T, rt *targets.Runtime) bench.ImageInfo {
	t.Helper()
	begin := time.Now()
	img, err := rt.BuildTarget(context.Background(), bench.TargetGo, targets.BuildOptions{Log: testWriter{t}})
	if err != nil {
		t.Fatalf("Build(go): %v", err)
	}
	t.Logf("Build(go) = %+v in %s", img, time.Since(begin))
	return img
}

func TestGoTarget(t *testing.T) {
	rt := newRuntime(t)
	img := buildGo(t, rt)
	if repo := targets.GoEntry().Repository; !strings.HasPrefix(img.Ref, repo+":") || img.ID == "" {
		t.Fatalf("image = %+v, want a %s:<hash> ref and an ID", img, repo)
	}
	if got, want := img.BaseImage, "scratch"; got != want {
		t.Errorf("BaseImage = %q, want %q", got, want)
	}
	if !strings.HasPrefix(img.Runtime, "go1.") {
		t.Errorf("Runtime = %q, want the go version", img.Runtime)
	}

	// healthy is how long a healthy start took on this machine, and
	// stopped how long its stop and removal: the never-healthy start below
	// (create, start, wait, then stop and remove) must give up within its
	// timeout and a few of both, however fast the machine is and however
	// busy (beside other tests' JVMs, one gave up 2.4 s after its timeout,
	// where four healthy starts alone allowed 1.9 s).
	var healthy, stopped time.Duration
	t.Run("Contract", func(t *testing.T) {
		id := runID(t)
		opts := targets.StartOptions{Limits: bench.Limits{CPUs: 1, MemoryMiB: 256}, RunID: id}
		if runtime.NumCPU() >= 2 { // the runner's split: the target on the last CPU
			opts.CPUSet = strconv.Itoa(runtime.NumCPU() - 1)
		}
		begin := time.Now()
		inst := start(t, rt, bench.TargetGo, img, opts)
		healthy = time.Since(begin)
		contracttest.Run(t, inst.BaseURL(), contracttest.Options{Target: bench.TargetGo, MetricsPath: "/metrics", ThreadModel: bench.ThreadModelGoroutines})

		s := inst.Settings()
		for key, want := range map[string]string{"cpus": "1", "memoryMiB": "256", "cpuset": opts.CPUSet, "threadModel": "goroutines", "image": img.Ref} {
			if s[key] != want {
				t.Errorf("Settings()[%q] = %q, want %q", key, s[key], want)
			}
		}
		if got, want := inst.MetricsURL(), inst.BaseURL()+"/metrics"; got != want {
			t.Errorf("MetricsURL = %q, want %q", got, want)
		}
		if st, err := inst.State(context.Background()); err != nil || !st.Running {
			t.Fatalf("State = %+v, %v; want running", st, err)
		}
		stopping := time.Now()
		if err := inst.Stop(context.Background()); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		stopped = time.Since(stopping)
		if err := inst.Stop(context.Background()); err != nil {
			t.Fatalf("second Stop: %v", err)
		}
		if left := labelled(t, id); len(left) != 0 {
			t.Fatalf("containers left after Stop: %v", left)
		}
	})

	t.Run("Cached", func(t *testing.T) {
		again := buildGo(t, rt)
		if !again.Cached || again.Ref != img.Ref || again.ID != img.ID {
			t.Fatalf("second Build = %+v, want the cached %+v", again, img)
		}
	})

	t.Run("ErrNeverHealthy", func(t *testing.T) {
		id := runID(t)
		begin := time.Now()
		// The server listens elsewhere than where the health check looks.
		_, err := rt.StartTarget(context.Background(), bench.TargetGo, img, targets.StartOptions{
			Limits: bench.Limits{CPUs: 1, MemoryMiB: 256}, RunID: id,
			HealthTimeout: 3 * time.Second,
			Env:           map[string]string{"PORT": fmt.Sprint(freePort(t))},
		})
		elapsed := time.Since(begin)
		if err == nil {
			t.Fatal("Start succeeded against a target that never answers /health")
		}
		t.Logf("error after %s: %v", elapsed, err)
		if got, want := bench.ErrorCode(err), bench.EUNAVAILABLE; got != want {
			t.Errorf("code = %q, want %q", got, want)
		}
		if !strings.Contains(err.Error(), "not healthy within 3s") || !strings.Contains(err.Error(), "listening") {
			t.Errorf("error lacks the timeout or a line of the target's log: %v", err)
		}
		if limit := 3*time.Second + 4*(healthy+stopped); elapsed < 3*time.Second || healthy > 0 && elapsed > limit {
			t.Errorf("Start took %s to give up, want the 3s timeout and at most four healthy starts and stops more (%s, %s)", elapsed, healthy, stopped)
		}
		if left := labelled(t, id); len(left) != 0 {
			t.Fatalf("containers left after a failed Start: %v", left)
		}
	})

	t.Run("ErrExits", func(t *testing.T) {
		id := runID(t)
		// Not a port: the server refuses to start, and Start says so at once.
		_, err := rt.StartTarget(context.Background(), bench.TargetGo, img, targets.StartOptions{
			RunID: id, HealthTimeout: 30 * time.Second, Env: map[string]string{"PORT": "not-a-port"},
		})
		if err == nil || !strings.Contains(err.Error(), "exited before it was healthy") {
			t.Fatalf("Start = %v, want an early exit error", err)
		}
		t.Logf("error: %v", err)
		if left := labelled(t, id); len(left) != 0 {
			t.Fatalf("containers left after a failed Start: %v", left)
		}
	})

	t.Run("PortTakenUnderIt", func(t *testing.T) {
		// Another process takes the picked port before the target binds
		// it: the target is started on another, and nothing is left of
		// the first start.
		held, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer held.Close()
		heldPort := held.Addr().(*net.TCPAddr).Port
		var log strings.Builder
		taken, err := targets.NewRuntime(targets.RuntimeOptions{Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		defer taken.Close()
		picks := 0
		targets.SetChoose(taken, func(port int) (int, error) {
			if picks++; picks == 1 {
				return heldPort, nil
			}
			return targets.ChoosePort(taken, port)
		})
		id := runID(t)
		inst, err := taken.StartTarget(context.Background(), bench.TargetGo, img, targets.StartOptions{RunID: id, Limits: bench.Limits{CPUs: 1, MemoryMiB: 256}})
		if err != nil {
			t.Fatalf("Start with its first port taken = %v, want it started on another", err)
		}
		defer inst.Stop(context.Background())
		if got := inst.Port(); got == heldPort || picks != 2 {
			t.Errorf("target on port %d after %d picks, want another than the taken %d, at the second pick", got, picks, heldPort)
		}
		if !strings.Contains(log.String(), "its port was taken") {
			t.Errorf("the runtime's log %q does not say the port was taken", log.String())
		}
		if left := labelled(t, id); len(left) != 1 {
			t.Errorf("containers of the run: %v, want the one started on the second port", left)
		}
	})
}

// TestCleanupRun removes only its own run's containers: other tests may be
// using the engine. Cleanup is the same code with the run filter left out.
func TestCleanupRun(t *testing.T) {
	rt := newRuntime(t)
	img := buildGo(t, rt)
	id := runID(t)
	start(t, rt, bench.TargetGo, img, targets.StartOptions{RunID: id})
	other := start(t, rt, bench.TargetGo, img, targets.StartOptions{RunID: id + "-other"})
	removed, err := rt.CleanupRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := removed, 1; got != want {
		t.Fatalf("CleanupRun removed %d containers, want %d", got, want)
	}
	if left := labelled(t, id); len(left) != 0 {
		t.Fatalf("containers left after CleanupRun: %v", left)
	}
	if st, err := other.State(context.Background()); err != nil || !st.Running {
		t.Fatalf("another run's container: state %+v, %v; want it left running", st, err)
	}
}

func TestEngineInfo(t *testing.T) {
	info, err := newRuntime(t).Engine(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", info)
	if info.DockerVersion == "" || info.APIVersion == "" || info.CPUs < 1 || info.MemoryBytes <= 0 {
		t.Fatalf("Engine = %+v, want version, API version, CPUs and memory", info)
	}
}

// TestJavaTargets starts both Java targets, each with the operator's JVM
// options (RuntimeOptions.JavaToolOptions, here the JIT's first tier
// only): each passes the contract, says its thread model, and its JVM
// picked the options up, as its settings record.
func TestJavaTargets(t *testing.T) {
	jvmslots.Hold(t, 75) // beside cmd/orchestrator's tests in make test
	const jvmOptions = "-XX:TieredStopAtLevel=1"
	rt := newRuntimeWith(t, targets.RuntimeOptions{JavaToolOptions: jvmOptions})
	begin := time.Now()
	img, err := rt.BuildTarget(context.Background(), bench.TargetJavaPlatform, targets.BuildOptions{Log: testWriter{t}})
	if err != nil {
		t.Fatalf("Build(java-platform): %v", err)
	}
	t.Logf("Build(java) = %+v in %s", img, time.Since(begin))
	shared, err := rt.BuildTarget(context.Background(), bench.TargetJavaVirtual, targets.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !shared.Cached || shared.Ref != img.Ref {
		t.Fatalf("Build(java-virtual) = %+v, want the java-platform image, cached", shared)
	}
	if reactive, err := rt.BuildTarget(context.Background(), bench.TargetJavaReactive, targets.BuildOptions{}); err != nil || !reactive.Cached || reactive.Ref != img.Ref {
		t.Fatalf("Build(java-reactive) = %+v, %v; want the java-platform image, cached", reactive, err)
	}
	// Spring Boot 3.5, the seeds' 3.x line: a jar and an image of its own
	// (boot3/pom.xml), shared by both servlet models.
	begin = time.Now()
	boot35, err := rt.BuildTarget(context.Background(), bench.TargetJavaPlatform+"@boot=3.5", targets.BuildOptions{Log: testWriter{t}})
	if err != nil || boot35.Ref == img.Ref {
		t.Fatalf("Build(java-platform@boot=3.5) = %+v, %v; want an image of its own", boot35, err)
	}
	t.Logf("Build(java-platform@boot=3.5) = %+v in %s", boot35, time.Since(begin))
	if shared, err := rt.BuildTarget(context.Background(), bench.TargetJavaVirtual+"@25,boot=3.5", targets.BuildOptions{}); err != nil || !shared.Cached || shared.Ref != boot35.Ref {
		t.Fatalf("Build(java-virtual@25,boot=3.5) = %+v, %v; want the java-platform@boot=3.5 image, cached", shared, err)
	}
	for _, tc := range []struct {
		name, threadModel, framework string
		image                        bench.ImageInfo
	}{
		{bench.TargetJavaPlatform, bench.ThreadModelPlatform, "Spring Boot 4.1.", img},
		{bench.TargetJavaVirtual, bench.ThreadModelVirtual, "Spring Boot 4.1.", img},
		{bench.TargetJavaReactive, bench.ThreadModelReactive, "Spring Boot 4.1.", img},
		{bench.TargetJavaPlatform + "@boot=3.5", bench.ThreadModelPlatform, "Spring Boot 3.5.", boot35},
		{bench.TargetJavaVirtual + "@boot=3.5", bench.ThreadModelVirtual, "Spring Boot 3.5.", boot35},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inst := start(t, rt, tc.name, tc.image, targets.StartOptions{
				Limits: bench.Limits{CPUs: 1, MemoryMiB: 1024}, RunID: runID(t),
				HealthTimeout: 90 * time.Second,
			})
			// The metrics have a port of their own, apart from the load.
			metricsBase, found := strings.CutSuffix(inst.MetricsURL(), "/actuator/prometheus")
			if !found || metricsBase == inst.BaseURL() || inst.Settings()["metricsPort"] == "" {
				t.Errorf("metrics at %s (settings: metricsPort %q), want a port other than the target's %s",
					inst.MetricsURL(), inst.Settings()["metricsPort"], inst.BaseURL())
			}
			contracttest.Run(t, inst.BaseURL(), contracttest.Options{Target: tc.name, MetricsPath: "/actuator/prometheus",
				MetricsBase: metricsBase, ThreadModel: tc.threadModel})
			if fw := servedBy(t, inst.BaseURL()); !strings.HasPrefix(fw, tc.framework) {
				t.Errorf("served by %q, want %s", fw, tc.framework)
			}
			if got, want := inst.Settings()["javaThreadModel"], tc.threadModel; got != want {
				t.Errorf("thread model setting = %q, want %q", got, want)
			}
			logs, err := inst.Logs(context.Background(), 0)
			if err != nil || !strings.Contains(logs, "Picked up JAVA_TOOL_OPTIONS: "+jvmOptions) {
				t.Errorf("the JVM did not pick up the operator's options %q (%v):\n%s", jvmOptions, err, logs[:min(len(logs), 2000)])
			}
			if got := inst.Settings()["javaToolOptions"]; got != jvmOptions {
				t.Errorf("javaToolOptions setting = %q, want %q", got, jvmOptions)
			}
		})
	}
}

// servedBy is what GET /info says serves the target's endpoints.
func servedBy(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/info")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var info struct{ Framework string }
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
		t.Fatal(err)
	}
	return info.Framework
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Cleanup removes what this history's runs left and nothing of another
// history's, on the same engine.
func TestCleanupKeepsOtherHistories(t *testing.T) {
	mine := newRuntimeWith(t, targets.RuntimeOptions{History: "test-mine-" + runID(t)[len(runID(t))-8:]})
	theirs := newRuntimeWith(t, targets.RuntimeOptions{History: "test-theirs-" + runID(t)[len(runID(t))-8:]})
	img := buildGo(t, mine)
	id := runID(t)
	start(t, mine, bench.TargetGo, img, targets.StartOptions{RunID: id})
	kept := start(t, theirs, bench.TargetGo, img, targets.StartOptions{RunID: id + "-theirs"})
	removed, err := mine.Cleanup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if removed != 1 || len(labelled(t, id)) != 0 {
		t.Fatalf("Cleanup removed %d, left %v; want this history's one container gone", removed, labelled(t, id))
	}
	if st, err := kept.State(context.Background()); err != nil || !st.Running {
		t.Fatalf("another history's container: %+v, %v; want it left running", st, err)
	}
}

// A start cancelled while the container is being created leaves nothing
// behind: the container is removed by the label of that one start, even
// when the create call returns no ID for it.
func TestStartCancelledMidCreateLeavesNothing(t *testing.T) {
	rt := newRuntime(t)
	img := buildGo(t, rt)
	// The create call takes some tens of milliseconds here: cancel every
	// 3 ms across it.
	for i := range 25 {
		after := time.Duration(i) * 3 * time.Millisecond
		id := fmt.Sprintf("%s-%d", runID(t), i)
		ctx, cancel := context.WithTimeout(context.Background(), after)
		inst, err := rt.StartTarget(ctx, bench.TargetGo, img, targets.StartOptions{RunID: id})
		cancel()
		if err == nil {
			inst.Stop(context.Background())
		}
		if left := labelled(t, id); len(left) != 0 {
			t.Errorf("cancelled after %s (err %v): containers left %v", after, err, left)
		}
	}
}

func newRuntimeWith(t *testing.T, opts targets.RuntimeOptions) *targets.Runtime {
	t.Helper()
	rt, err := targets.NewRuntime(opts)
	if err != nil {
		t.Fatalf("NewRuntime: %v", err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

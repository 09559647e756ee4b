//go:build integration

package metrics_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
	"github.com/threadbench/threadbench/internal/targets"
	"github.com/threadbench/threadbench/internal/targets/jrebase"
)

// TestSampler_Integration records the Go target running on the host (the
// HTTP side) and a container from the local JRE base image serving files
// (the Docker side) while both are loaded, with the attack clock's zero set
// halfway.
func TestSampler_Integration(t *testing.T) {
	ctx := t.Context()
	docker := dockerClient(t)
	metricsURL := startGoTarget(t)
	ctr, port := startJREContainer(t, docker)

	began := time.Now()
	if _, err := docker.ContainerStats(ctx, ctr, client.ContainerStatsOptions{}); err != nil {
		t.Fatalf("one-shot stats: %v", err)
	}
	// Engine 20.10 answers one-shot stats at once; with a previous sample
	// it would take a second, longer than the interval.
	if took := time.Since(began); took > 500*time.Millisecond {
		t.Errorf("one-shot stats took %s, want well under the interval", took)
	}

	const interval = 200 * time.Millisecond
	sampler := metrics.NewSampler(docker, metrics.WithInterval(interval))
	entry := targets.GoEntry()
	rec := sampler.Start(ctx, metrics.Target{Name: "go", MetricsURL: metricsURL, ContainerID: ctr, CPULimit: 1, MemoryLimitBytes: 256 << 20,
		Threads: entry.Threads, Memory: entry.Memory})
	// The "warm-up" spans at least two of the engine's one-second stats
	// samples (the first comes up to a second after subscribing), so that a
	// CPU ratio, which needs a previous sample, falls before t0.
	load(t, metricsURL, port, 3*time.Second)
	t0 := time.Now()
	rec.SetT0(t0)
	successes := load(t, metricsURL, port, 2*time.Second)
	warm := stage(-1, -3, 3, 1)
	warm.Warmup = true
	res := rec.Stop(ctx, &warm, []bench.StageResult{stage(0, 0, 2, successes)})

	if res.ScrapeFailures != 0 || res.StatsFailures != 0 {
		t.Errorf("scrape failures %d, stats failures %d (%s); want none", res.ScrapeFailures, res.StatsFailures, res.LastError)
	}
	byName := map[string]bench.Series{}
	for _, s := range res.Series {
		byName[s.Name] = s
	}
	for _, name := range []string{"go_goroutines", "go_threads", "process_cpu_seconds_total",
		metrics.ContainerCPURatio, metrics.ContainerMemoryWorkingSet, metrics.ContainerPids} {
		s, ok := byName[name]
		if !ok {
			t.Errorf("no series %s", name)
			continue
		}
		if first, last := s.Points[0].T, s.Points[len(s.Points)-1].T; first >= 0 || last <= 0 {
			t.Errorf("%s spans t=%.2f..%.2f, want from before t0 to after", name, first, last)
		}
	}
	if len(res.Expositions) != 2 {
		t.Errorf("%d expositions, want start and end", len(res.Expositions))
	}
	if len(res.Resources) != 2 {
		t.Fatalf("resources %+v, want warm-up and one stage", res.Resources)
	}
	r := res.Resources[1]
	t.Logf("stage 0: %d successes; goroutines peak %.0f mean %.1f; threads peak %.0f; working set peak %.1f MiB; CPU %.4f s/1k; GC %.0f pauses",
		successes, r.Thread(bench.ThreadGoroutine).Peak, r.Thread(bench.ThreadGoroutine).Mean, r.Thread(bench.ThreadPlatform).Peak,
		r.MemoryGauge(bench.MemoryWorkingSet).Peak/(1<<20), r.CPUSecondsPer1k, r.GCPauses)
	ratio := byName[metrics.ContainerCPURatio].Points
	t.Logf("container CPU ratio (limit 1 CPU): %v", ratio)
	if r.Thread(bench.ThreadGoroutine).Peak < 10 || r.Thread(bench.ThreadPlatform).Peak == 0 || r.MemoryGauge(bench.MemoryWorkingSet).Peak == 0 {
		t.Errorf("stage resources %+v: want goroutines from the load, threads and a working set", r)
	}
}

// dockerClient connects to the engine the way testcontainers does.
func dockerClient(t *testing.T) *testcontainers.DockerClient {
	t.Helper()
	for k, v := range map[string]string{"TESTCONTAINERS_RYUK_DISABLED": "true", "TESTCONTAINERS_HOST_OVERRIDE": "127.0.0.1"} {
		if _, ok := os.LookupEnv(k); !ok {
			t.Setenv(k, v)
		}
	}
	docker, err := testcontainers.NewDockerClientWithOpts(t.Context())
	if err != nil {
		t.Fatalf("no Docker engine (make integration starts one: scripts/docker-up.sh): %v", err)
	}
	t.Cleanup(func() { docker.Close() })
	return docker
}

// startGoTarget builds targets/go and runs it on a free loopback port.
func startGoTarget(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gotarget")
	build := exec.Command("go", "build", "-o", bin, "./targets/go")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the Go target: %v\n%s", err, out)
	}
	port := freePort(t)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "TARGET_NAME=go")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	waitFor(t, func() bool { return get(base+"/health") == nil })
	return base + "/metrics"
}

// startJREContainer runs the JDK's file server from the local
// threadbench/jre image on a free loopback port, limited to 1 CPU and
// 256 MiB, assembling the image first where the engine has none (a fresh
// engine: the jrebase tests, which would make one, run after these).
func startJREContainer(t *testing.T, docker *testcontainers.DockerClient) (id string, port int) {
	t.Helper()
	ref, _, err := jrebase.EnsureMajor(t.Context(), docker, 25, io.Discard)
	if err != nil {
		t.Fatalf("a JRE 25 base image (assembled from the host's JDK 25 when not on the engine): %v", err)
	}
	port = freePort(t)
	ctr, err := testcontainers.GenericContainer(t.Context(), testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image: ref,
			Cmd:   []string{"java", "-m", "jdk.httpserver", "-b", "127.0.0.1", "-p", strconv.Itoa(port), "-d", "/opt/java/openjdk"},
			// Not io.threadbench.managed: other packages' tests clean those
			// up, and would remove this container mid-test.
			Labels: map[string]string{"io.threadbench.test": "internal/metrics"},
			HostConfigModifier: func(hc *container.HostConfig) {
				hc.NetworkMode = "host"
				hc.NanoCPUs = 1e9
				hc.Memory, hc.MemorySwap = 256<<20, 256<<20
			},
		},
		Started: true,
	})
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		t.Fatalf("start container: %v", err)
	}
	waitFor(t, func() bool { return get("http://127.0.0.1:"+strconv.Itoa(port)+"/") == nil })
	return ctr.GetContainerID(), port
}

// load keeps 20 requests to the Go target's heavy endpoint and one file
// download from the container in flight for d, and returns the Go target's
// successes.
func load(t *testing.T, metricsURL string, filePort int, d time.Duration) int64 {
	t.Helper()
	base := metricsURL[:len(metricsURL)-len("/metrics")]
	deadline := time.Now().Add(d)
	var mu sync.Mutex
	var successes int64
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if get(base+"/api/heavy?duration=50") == nil {
					mu.Lock()
					successes++
					mu.Unlock()
				}
			}
		})
	}
	wg.Go(func() {
		for time.Now().Before(deadline) {
			get("http://127.0.0.1:" + strconv.Itoa(filePort) + "/lib/modules")
		}
	})
	wg.Wait()
	return successes
}

func get(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
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

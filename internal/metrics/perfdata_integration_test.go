//go:build integration

package metrics_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
)

// TestPerfData_Integration records a JVM in a container (the JDK's file
// server on the local JRE 25 image: no Prometheus endpoint) from its perf
// counters alone, copied out through the engine, and measures what a copy
// costs: its wall time, and the CPU it takes this process and the engine
// (dockerd, when it runs on this machine), copies made back to back.
func TestPerfData_Integration(t *testing.T) {
	ctx := t.Context()
	docker := dockerClient(t)
	ctr, port := startJREContainer(t, docker)

	copier := &timingCopier{docker: docker}
	const interval = 200 * time.Millisecond
	rec := metrics.NewSampler(nil, metrics.WithInterval(interval)).Start(ctx, metrics.Target{
		Name: "jwebserver", ContainerID: ctr, JVM: true, Copier: copier,
		Threads: orders.Threads, Memory: orders.Memory,
	})
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		get("http://127.0.0.1:" + strconv.Itoa(port) + "/release")
	}
	res := rec.Stop(ctx, nil, []bench.StageResult{stage(0, 0, 3, 1)})
	if res.StatsFailures != 0 {
		t.Errorf("%d failed reads: %s", res.StatsFailures, res.LastError)
	}
	for _, name := range []string{metrics.JVMThreadsLive, metrics.JVMMemoryUsed, metrics.JVMMemoryCommitted,
		metrics.JVMGCPauses, metrics.JVMGCPauseSeconds, metrics.JVMCompilationMs} {
		if s, ok := findSeries(res.Series, name); !ok || len(s.Points) < 5 {
			t.Errorf("%s: %d points, want one every %s for 3 s (at least 5: a copy may take longer)", name, len(s.Points), interval)
		}
	}
	r := res.Resources[0]
	jit, _ := findSeries(res.Series, metrics.JVMCompilationMs)
	t.Logf("recorded: %d reads; threads peak %.0f, heap peak %.1f MiB, %.0f GC pauses, JIT %.0f ms at the end",
		copier.count(), r.Thread(bench.ThreadPlatform).Peak, r.MemoryGauge(bench.MemoryHeap).Peak/(1<<20), r.GCPauses, jit.Points[len(jit.Points)-1].V)
	if r.Thread(bench.ThreadPlatform).Peak <= 0 || r.MemoryGauge(bench.MemoryHeap).Peak <= 0 {
		t.Errorf("stage resources %+v: want the JVM's threads and heap", r)
	}
	measureCopies(t, docker, ctr)
}

// measureCopies has a recording copy the perf data file n times, one
// every 40 ms, and logs what a copy took: wall time (median and 90th
// percentile), this process's CPU, and the engine's when it runs here,
// less what it used over as long idle just before.
func measureCopies(t *testing.T, docker metrics.Copier, ctr string) {
	t.Helper()
	const n = 100
	dockerd := dockerdPid()
	idleFrom, idleEngine := time.Now(), cpuOf(dockerd)
	time.Sleep(2 * time.Second)
	idleEngineRate := (cpuOf(dockerd) - idleEngine).Seconds() / time.Since(idleFrom).Seconds()

	copier := &timingCopier{docker: docker}
	began, self, engine := time.Now(), ownCPU(), cpuOf(dockerd)
	rec := metrics.NewSampler(nil, metrics.WithInterval(40*time.Millisecond)).Start(t.Context(), metrics.Target{
		Name: "jwebserver", ContainerID: ctr, JVM: true, Copier: copier,
	})
	deadline := time.Now().Add(30 * time.Second)
	for copier.count() < n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	res := rec.Stop(t.Context(), nil, nil)
	wall := time.Since(began)
	selfCPU, engineCPU := ownCPU()-self, cpuOf(dockerd)-engine
	took := copier.durations()
	slices.Sort(took)
	copies := float64(len(took))
	engineNet := engineCPU.Seconds() - idleEngineRate*wall.Seconds()
	t.Logf("%d copies of the perf data file (%d bytes) in %s: median %s, p90 %s; this process %.2f ms CPU a copy (parse included); "+
		"dockerd (pid %d) %.2f ms CPU a copy (%.2f ms less its idle rate of %.1f %% of a CPU); %d failed (%s)",
		len(took), copier.size(), wall.Round(time.Millisecond), took[len(took)/2].Round(10*time.Microsecond), took[len(took)*9/10].Round(10*time.Microsecond),
		1000*selfCPU.Seconds()/copies, dockerd, 1000*engineCPU.Seconds()/copies, 1000*engineNet/copies, 100*idleEngineRate, res.StatsFailures, res.LastError)
	if median := took[len(took)/2]; median > metrics.DefaultInterval/2 {
		t.Errorf("a copy takes %s, want well under the interval", median)
	}
}

// timingCopier copies through the engine, timing each copy from the
// request to the archive's close.
type timingCopier struct {
	docker metrics.Copier
	mu     sync.Mutex
	took   []time.Duration
	bytes  int64
}

func (c *timingCopier) CopyFromContainer(ctx context.Context, id string, opts client.CopyFromContainerOptions) (client.CopyFromContainerResult, error) {
	began := time.Now()
	res, err := c.docker.CopyFromContainer(ctx, id, opts)
	if err == nil {
		res.Content = &timedBody{ReadCloser: res.Content, done: func(n int64) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.took = append(c.took, time.Since(began))
			c.bytes = max(c.bytes, n)
		}}
	}
	return res, err
}

func (c *timingCopier) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.took)
}

func (c *timingCopier) durations() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.took)
}

// size is the largest archive's size.
func (c *timingCopier) size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// timedBody reports the bytes read when closed.
type timedBody struct {
	io.ReadCloser
	n    int64
	done func(n int64)
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

func (b *timedBody) Close() error {
	io.Copy(io.Discard, b) // the archive's padding, as the engine sends it
	b.done(b.n)
	return b.ReadCloser.Close()
}

// ownCPU is the CPU time this process has used.
func ownCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// dockerdPid is the engine's pid on this machine, 0 if it runs elsewhere.
func dockerdPid() int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/comm")
	for _, d := range dirs {
		if b, err := os.ReadFile(d); err == nil && strings.TrimSpace(string(b)) == "dockerd" {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
			return pid
		}
	}
	return 0
}

// cpuOf is the CPU time a process and its children have used (utime,
// stime, cutime and cstime of /proc/PID/stat, in the kernel's 100 Hz
// ticks): dockerd tars a container's files in a child it starts for each
// copy; 0 for pid 0.
func cpuOf(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command, which is in parentheses and may hold spaces.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	var ticks int64
	for _, f := range fields[11:15] {
		n, _ := strconv.ParseInt(f, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

package runner

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/threadbench/threadbench/internal/bench"
)

// splitCPUs decides who runs where: with two or more CPUs the target gets the
// last one and the load generator the others, so they never share a CPU;
// with one CPU, or where the process cannot be pinned, nothing can be split.
func splitCPUs(n int) (target, load string, applied bool) {
	if n < 2 || !canPin {
		return "", "", false
	}
	target = strconv.Itoa(n - 1)
	load = "0"
	if n > 2 {
		load = "0-" + strconv.Itoa(n-2)
	}
	return target, load, true
}

// hostEnvironment records the machine a run is measured on.
func hostEnvironment(ctx context.Context, rt bench.TargetRuntime, cpus int) bench.Environment {
	env := bench.Environment{
		OS:             runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:           cpus,
		CPUModel:       cpuModel(),
		MemoryBytes:    memTotal(),
		OrchestratorGo: runtime.Version(),
	}
	env.Host, _ = os.Hostname()
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		env.Kernel = unix.ByteSliceToString(uts.Release[:])
	}
	if info, err := rt.Engine(ctx); err == nil {
		env.DockerVersion, env.CgroupVersion = info.Version, info.CgroupVersion
	}
	env.TargetCPUSet, env.LoadCPUSet, env.CPUSplitApplied = splitCPUs(cpus)
	return env
}

// HostResources returns this host's CPUs and memory in bytes (0 when
// /proc does not say), the bounds of a spec's limits.
func HostResources() (cpus int, memoryBytes int64) {
	return runtime.NumCPU(), memTotal()
}

func cpuModel() string {
	return procField("/proc/cpuinfo", "model name")
}

func memTotal() int64 {
	kb, _ := strconv.ParseInt(strings.TrimSuffix(procField("/proc/meminfo", "MemTotal"), " kB"), 10, 64)
	return kb * 1024
}

// procField returns the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

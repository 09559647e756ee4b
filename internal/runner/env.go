package runner

import (
	"bufio"
	"context"
	"math"
	"os"
	"runtime"
	"slices"
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
	return cpuRange(n-1, n-1), cpuRange(0, n-2), true
}

// splitRemote decides where targets run on a remote host of n CPUs, where
// no load generator runs: on the last ceil(limit) CPUs, as a local target
// is pinned to its CPU, so that each runtime sizes its parallelism from
// the CPUs it may use alike on either host (under a CPU quota alone Go
// counts at least two, Java counts the quota); the rest are for a
// downstream service. A host that does not say how many CPUs it has, or
// has no more than the limit, is not split.
func splitRemote(n int, limit float64) (target, rest string) {
	k := int(math.Ceil(limit))
	if k < 1 || n <= k {
		return "", ""
	}
	return cpuRange(n-k, n-1), cpuRange(0, n-k-1)
}

// cpuRange is the Linux CPU list of CPUs first to last: "3", "0-2".
func cpuRange(first, last int) string {
	if first == last {
		return strconv.Itoa(first)
	}
	return strconv.Itoa(first) + "-" + strconv.Itoa(last)
}

// LocalMachine describes this host: its name, OS, kernel, CPUs and their
// model, and memory (Docker's own figures are the engine's to give).
func LocalMachine() bench.Machine {
	m := bench.Machine{OS: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU(), CPUModel: cpuModel(), MemoryBytes: memTotal()}
	m.Host, _ = os.Hostname()
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		m.Kernel = unix.ByteSliceToString(uts.Release[:])
	}
	return m
}

// hostEnvironment records the machine a run is measured on: this host, where
// the load generator runs, and each engine the spec places targets on. The
// CPUs are split only when a target runs here: with every target on a
// remote engine, the whole host is the load generator's and the remote
// host's CPUs are the targets' (splitRemote).
func hostEnvironment(ctx context.Context, rt bench.TargetRuntime, cpus int, spec bench.RunSpec) bench.Environment {
	env := bench.Environment{Machine: LocalMachine(), OrchestratorGo: runtime.Version(), MixedEngines: spec.MixesEngines()}
	env.CPUs = cpus
	if info, err := rt.Engine(ctx, bench.EngineLocal); err == nil {
		env.DockerVersion, env.CgroupVersion = info.DockerVersion, info.CgroupVersion
	}
	engines := spec.Engines()
	if slices.Contains(engines, bench.EngineLocal) {
		env.TargetCPUSet, env.LoadCPUSet, env.CPUSplitApplied = splitCPUs(cpus)
	}
	for _, name := range engines {
		env.Engines = append(env.Engines, engineEnvironment(ctx, rt, name, env, spec.Limits))
	}
	return env
}

// engineEnvironment describes an engine, its host and the CPUs its targets
// are pinned to: the local one is this host; a remote one's CPU model comes
// later, from its first target's GET /info, since the engine API does not
// say.
func engineEnvironment(ctx context.Context, rt bench.TargetRuntime, name string, host bench.Environment, limits bench.Limits) bench.EngineEnvironment {
	ee := bench.EngineEnvironment{Name: name}
	if info, err := rt.Engine(ctx, name); err == nil {
		ee.Remote, ee.Address, ee.Machine = info.Remote, info.Address, info.Machine
	}
	if ee.Remote {
		ee.TargetCPUSet, _ = splitRemote(ee.CPUs, limits.CPUs)
	} else {
		ee.CPUModel, ee.TargetCPUSet = host.CPUModel, host.TargetCPUSet
	}
	return ee
}

// targetCPUSet is the CPUs a target on engine is pinned to, "" for any.
func targetCPUSet(env bench.Environment, engine string) string {
	if ee := env.Engine(engine); ee != nil {
		return ee.TargetCPUSet
	}
	if onLocalEngine(engine) {
		return env.TargetCPUSet
	}
	return ""
}

// onLocalEngine reports whether a target runs on this host, sharing its
// CPUs with the load generator.
func onLocalEngine(engine string) bool { return engine == "" || engine == bench.EngineLocal }

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

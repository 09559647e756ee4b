package runner

import (
	"context"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// engineRuntime describes engines and does nothing else.
type engineRuntime struct{ bench.TargetRuntime }

func (engineRuntime) Engine(_ context.Context, name string) (bench.EngineInfo, error) {
	return bench.EngineInfo{Name: name, Remote: name != bench.EngineLocal, Machine: bench.Machine{CPUs: 8}}, nil
}

// The CPUs are split only when a target shares this host with the load
// generator: a remote target leaves the whole host to it.
func TestHostEnvironmentSplit(t *testing.T) {
	t.Parallel()
	if !canPin {
		t.Skip("no CPU pinning on this OS")
	}
	for _, tt := range []struct {
		name    string
		spec    bench.RunSpec
		applied bool
		engines int
		mixed   bool
	}{
		{"local", bench.RunSpec{Targets: []string{"go"}, Engine: bench.EngineLocal}, true, 1, false},
		{"remote", bench.RunSpec{Targets: []string{"go"}, Engine: "lab"}, false, 1, false},
		{"mixed", bench.RunSpec{Engine: "lab", Cases: []bench.Case{{Name: "a", Target: "go", Engine: bench.EngineLocal}, {Name: "b", Target: "go"}}}, true, 2, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := hostEnvironment(context.Background(), engineRuntime{}, 2, tt.spec)
			if env.CPUSplitApplied != tt.applied || len(env.Engines) != tt.engines || env.MixedEngines != tt.mixed {
				t.Errorf("split %t, %d engines, mixed %t; want %t, %d, %t", env.CPUSplitApplied, len(env.Engines), env.MixedEngines, tt.applied, tt.engines, tt.mixed)
			}
			if !tt.applied && (env.LoadCPUSet != "" || env.TargetCPUSet != "") {
				t.Errorf("cpusets %q/%q without a split", env.LoadCPUSet, env.TargetCPUSet)
			}
		})
	}
}

// A remote host's targets get its last CPUs, as many as the limit rounded
// up, and a downstream service the rest; a host too small to split, or
// that does not say its CPUs, is not.
func TestSplitRemote(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cpus         int
		limit        float64
		target, rest string
	}{
		{8, 1, "7", "0-6"},
		{8, 2.5, "5-7", "0-4"},
		{2, 1, "1", "0"},
		{32, 0.5, "31", "0-30"},
		// No CPU left over: the targets have them all, unpinned.
		{2, 2, "", ""},
		{4, 6, "", ""},
		// The engine did not say.
		{0, 1, "", ""},
	} {
		target, rest := splitRemote(tt.cpus, tt.limit)
		if target != tt.target || rest != tt.rest {
			t.Errorf("splitRemote(%d, %g) = %q, %q; want %q, %q", tt.cpus, tt.limit, target, rest, tt.target, tt.rest)
		}
	}
}

package runner

import (
	"runtime"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// Two attacks of one process pinned at once share the pin: the process
// stays pinned until the last releases it, then its affinity and
// GOMAXPROCS are what they were before the first, and a release called
// twice counts once.
func TestPinSharedByOverlappingAttacks(t *testing.T) {
	var before unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Fatal(err)
	}
	procs := runtime.GOMAXPROCS(0)
	cpu := firstCPU(before)
	one := strconv.Itoa(cpu)
	releaseA, err := pinProcess(one)
	if err != nil {
		t.Fatal(err)
	}
	releaseB, err := pinProcess(one)
	if err != nil {
		t.Fatal(err)
	}
	if last := lastCPU(before); last != cpu {
		if _, err := pinProcess(strconv.Itoa(last)); err == nil {
			t.Error("a pin to other CPUs while the process is pinned was taken")
		}
	}
	releaseA()
	releaseA()
	if got := affinity(t); got.Count() != 1 || !got.IsSet(cpu) || runtime.GOMAXPROCS(0) != 1 {
		t.Errorf("after the first release: affinity of %d CPUs, GOMAXPROCS %d; want still pinned to CPU %d with 1", got.Count(), runtime.GOMAXPROCS(0), cpu)
	}
	releaseB()
	if got := affinity(t); got != before || runtime.GOMAXPROCS(0) != procs {
		t.Errorf("after the last release: affinity of %d CPUs, GOMAXPROCS %d; want %d CPUs and %d as before", got.Count(), runtime.GOMAXPROCS(0), before.Count(), procs)
	}
}

func affinity(t *testing.T) unix.CPUSet {
	t.Helper()
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	return set
}

func firstCPU(set unix.CPUSet) int {
	for cpu := 0; ; cpu++ {
		if set.IsSet(cpu) {
			return cpu
		}
	}
}

func lastCPU(set unix.CPUSet) int {
	last := -1
	for cpu := 0; cpu < 1024; cpu++ {
		if set.IsSet(cpu) {
			last = cpu
		}
	}
	return last
}

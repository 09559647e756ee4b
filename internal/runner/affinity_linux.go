package runner

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// canPin says whether pinProcess works here.
const canPin = true

// pinProcess restricts every thread of this process to the CPUs in cpuset
// (a list such as "0" or "0-2,4") and returns a function that releases the
// pin. Go threads created later inherit the affinity of the thread that
// creates them, so pinning every current thread pins the process.
// The load generator runs pinned during attacks so that it never shares a CPU
// with the target, with GOMAXPROCS set to the CPUs it has: more Ps than
// CPUs only make goroutines take turns on one (measured: 45k req/s with one
// P on one CPU against 40k with two).
//
// Attacks of one process that overlap (a daemon runs one at a time; a test
// suite runs several side by side, each with an attack lock of its own)
// share the pin: the first pins, the last to release restores the affinity
// and GOMAXPROCS from before the first. Restoring when each ended would
// leave the process pinned by whichever saved the other's pin as its
// "before".
func pinProcess(cpuset string) (release func(), err error) {
	want, err := parseCPUSet(cpuset)
	if err != nil {
		return nil, err
	}
	pin.mu.Lock()
	defer pin.mu.Unlock()
	if pin.holders > 0 {
		if want != pin.set {
			return nil, fmt.Errorf("the load generator is pinned to CPUs %s by another attack of this process: it cannot be pinned to %s at once", pin.cpuset, cpuset)
		}
		pin.holders++
		return pin.releaser(), nil
	}
	if err := unix.SchedGetaffinity(0, &pin.before); err != nil {
		return nil, fmt.Errorf("read CPU affinity: %w", err)
	}
	if err := setAllThreads(&want); err != nil {
		return nil, err
	}
	pin.set, pin.cpuset, pin.holders = want, cpuset, 1
	pin.procs = runtime.GOMAXPROCS(want.Count())
	return pin.releaser(), nil
}

// pin is the process's pin while attacks hold it.
var pin processPin

// processPin is a pin of the whole process, counted by its holders.
type processPin struct {
	mu      sync.Mutex
	holders int
	set     unix.CPUSet
	cpuset  string
	before  unix.CPUSet // the affinity before the first holder
	procs   int         // GOMAXPROCS before the first holder
}

// releaser returns one holder's release: it counts once however often it
// is called, and the last holder's restores the process.
func (p *processPin) releaser() func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.holders--; p.holders == 0 {
				runtime.GOMAXPROCS(p.procs)
				_ = setAllThreads(&p.before)
			}
		})
	}
}

func setAllThreads(set *unix.CPUSet) error {
	tids, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	for _, t := range tids {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		// A thread may exit between listing and pinning; that is fine.
		if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("pin thread %d: %w", tid, err)
		}
	}
	return nil
}

// parseCPUSet reads a Linux CPU list ("0", "0-2,4").
func parseCPUSet(s string) (unix.CPUSet, error) {
	var set unix.CPUSet
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		first, err := strconv.Atoi(lo)
		last := first
		if err == nil && isRange {
			last, err = strconv.Atoi(hi)
		}
		if err != nil || first < 0 || last < first {
			return set, fmt.Errorf("invalid CPU set %q", s)
		}
		for cpu := first; cpu <= last; cpu++ {
			set.Set(cpu)
		}
	}
	return set, nil
}

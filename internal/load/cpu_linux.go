package load

import "golang.org/x/sys/unix"

// cpuSetSize returns how many CPUs this process may run on now (the runner
// pins the generator before an attack).
func cpuSetSize() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil || set.Count() == 0 {
		return 1
	}
	return set.Count()
}

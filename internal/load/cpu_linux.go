package load

import (
	"bufio"
	"os"

	"golang.org/x/sys/unix"
)

// cpuSetSize returns how many CPUs this process may run on now (the runner
// pins the generator before an attack).
func cpuSetSize() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil || set.Count() == 0 {
		return 1
	}
	return set.Count()
}

// machineSteal returns the CPU time the hypervisor took from this
// machine's CPUs (steal) and their whole time, in clock ticks, from the
// first line of /proc/stat; 0, 0 where it cannot be read.
func machineSteal() (steal, total int64) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		return 0, 0
	}
	return parseSteal(line)
}

//go:build !linux

package load

import "runtime"

// cpuSetSize returns how many CPUs this process may run on.
func cpuSetSize() int { return runtime.NumCPU() }

// machineSteal is not known here: 0, 0.
func machineSteal() (steal, total int64) { return 0, 0 }

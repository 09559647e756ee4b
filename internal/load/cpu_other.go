//go:build !linux

package load

import "runtime"

// cpuSetSize returns how many CPUs this process may run on.
func cpuSetSize() int { return runtime.NumCPU() }

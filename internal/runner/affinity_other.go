//go:build !linux

package runner

import "errors"

// canPin says whether pinProcess works here.
const canPin = false

// pinProcess is Linux only (sched_setaffinity): elsewhere the load
// generator cannot be kept off the target's CPU, and a run that asks for the
// split fails rather than measure with the two sharing a CPU.
func pinProcess(cpuset string) (restore func(), err error) {
	return nil, errors.New("pinning the load generator to CPUs " + cpuset + " needs Linux")
}

package diagnosis

import "github.com/threadbench/threadbench/internal/jfr"

// WaitOf is waitOf for the tests: what a stack waited for, the frame
// named for it, and whether the wait is idle.
func WaitOf(stack []jfr.Frame) (what, frame string, idle, ok bool) {
	w := newMatcher().waitOf(stack)
	return w.What, w.Frame, w.Idle, w.Known
}

// TryFor is tryFor for the tests.
var TryFor = tryFor

package perfdata

import (
	"errors"
	"fmt"
	"time"
)

// ErrOtherJVM is two snapshots of different JVMs, such as a container's
// pid 1 before and after it restarted: their counters cannot be subtracted.
var ErrOtherJVM = errors.New("the snapshots are of two different JVMs")

// Change is what a JVM did between two snapshots, such as the start and
// end of a stage. A figure is nil when either snapshot lacks it.
// JITSeconds divided by the stage's seconds is how many compilations were
// under way on average: well above zero, the JVM is still warming up.
type Change struct {
	JITSeconds       *float64 // time compiling, summed over compiler threads
	CompiledMethods  *int64   // compilations done
	ClassesLoaded    *int64   // classes loaded
	GCCollections    *int64   // collections, every collector's
	GCSeconds        *float64 // time in collection pauses, every collector's
	Safepoints       *int64   // safepoints reached
	SafepointSeconds *float64 // time at safepoints
}

// Delta returns what the JVM did from before to after, two snapshots of
// the same JVM. It returns ErrOtherJVM if they tell different start times.
func Delta(before, after Figures) (Change, error) {
	if !sameJVM(before.Started, after.Started) {
		return Change{}, fmt.Errorf("%w: started at %s, then at %s", ErrOtherJVM,
			before.Started.Format(time.RFC3339Nano), after.Started.Format(time.RFC3339Nano))
	}
	return Change{
		JITSeconds:       increase(before.JITSeconds, after.JITSeconds),
		CompiledMethods:  increase(before.CompiledMethods, after.CompiledMethods),
		ClassesLoaded:    increase(before.ClassesLoaded, after.ClassesLoaded),
		GCCollections:    increase(optional(before.GCCollections()), optional(after.GCCollections())),
		GCSeconds:        increase(optional(before.GCSeconds()), optional(after.GCSeconds())),
		Safepoints:       increase(before.Safepoints, after.Safepoints),
		SafepointSeconds: increase(before.SafepointSeconds, after.SafepointSeconds),
	}, nil
}

// sameJVM reports whether two start times can be the same JVM's: equal,
// or one of them unknown.
func sameJVM(before, after time.Time) bool {
	return before.IsZero() || after.IsZero() || before.Equal(after)
}

// increase returns after minus before, or nil if either is nil. A counter
// that went down (these only grow) is another JVM's: nil too.
func increase[T int64 | float64](before, after *T) *T {
	if before == nil || after == nil || *after < *before {
		return nil
	}
	d := *after - *before
	return &d
}

// optional returns v if ok, else nil.
func optional[T any](v T, ok bool) *T {
	if !ok {
		return nil
	}
	return &v
}

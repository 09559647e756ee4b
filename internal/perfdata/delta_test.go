package perfdata_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/perfdata"
)

// TestDelta checks what a JVM did between two snapshots.
func TestDelta(t *testing.T) {
	start := time.UnixMilli(1795902814520)
	before := perfdata.Figures{
		Started:          start,
		Collectors:       []perfdata.Collector{{Name: "young", Collections: 10, Seconds: 0.25}, {Name: "full", Collections: 1, Seconds: 0.5}},
		JITSeconds:       ptr(2.0),
		CompiledMethods:  ptr[int64](1000),
		ClassesLoaded:    ptr[int64](5000),
		Safepoints:       ptr[int64](40),
		SafepointSeconds: ptr(0.125),
	}
	after := perfdata.Figures{
		Started:          start,
		Collectors:       []perfdata.Collector{{Name: "young", Collections: 14, Seconds: 0.5}, {Name: "full", Collections: 1, Seconds: 0.5}},
		JITSeconds:       ptr(3.5),
		CompiledMethods:  ptr[int64](1200),
		ClassesLoaded:    ptr[int64](5000),
		Safepoints:       ptr[int64](50),
		SafepointSeconds: ptr(0.25),
		Threads:          ptr[int64](30), // a level, not a count: not in a Change
	}
	tests := []struct {
		name          string
		before, after perfdata.Figures
		want          perfdata.Change
		err           error
	}{
		{"a stage", before, after, perfdata.Change{
			JITSeconds: ptr(1.5), CompiledMethods: ptr[int64](200), ClassesLoaded: ptr[int64](0),
			GCCollections: ptr[int64](4), GCSeconds: ptr(0.25), Safepoints: ptr[int64](10), SafepointSeconds: ptr(0.125),
		}, nil},
		// No counters on one side: nothing to subtract, not zero.
		{"empty snapshot", perfdata.Figures{Started: start}, after, perfdata.Change{}, nil},
		// Counters that went down are a restarted JVM's, though the start time is unknown.
		{"counters went down", perfdata.Figures{JITSeconds: ptr(9.0), CompiledMethods: ptr[int64](1)}, perfdata.Figures{JITSeconds: ptr(1.0), CompiledMethods: ptr[int64](5)},
			perfdata.Change{CompiledMethods: ptr[int64](4)}, nil},
		// A container's JVM is pid 1 again after a restart: the start time tells them apart.
		{"another JVM", before, withStarted(after, start.Add(time.Minute)), perfdata.Change{}, perfdata.ErrOtherJVM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := perfdata.Delta(tt.before, tt.after)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Delta error %v, want %v", err, tt.err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Delta = %s\nwant %s", describe(got), describe(tt.want))
			}
		})
	}
}

// withStarted returns f with another start time.
func withStarted(f perfdata.Figures, started time.Time) perfdata.Figures {
	f.Started = started
	return f
}

// describe writes a Change's figures, which %+v would print as addresses.
func describe(c perfdata.Change) map[string]any {
	return map[string]any{
		"JITSeconds": deref(c.JITSeconds), "CompiledMethods": deref(c.CompiledMethods), "ClassesLoaded": deref(c.ClassesLoaded),
		"GCCollections": deref(c.GCCollections), "GCSeconds": deref(c.GCSeconds),
		"Safepoints": deref(c.Safepoints), "SafepointSeconds": deref(c.SafepointSeconds),
	}
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T {
	return &v
}

package bench_test

import (
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

func TestGeneratorFlags(t *testing.T) {
	for _, tt := range []struct {
		name string
		g    bench.Generator
		want []string // kind: part of the reason
	}{
		{"idle", bench.Generator{CPUs: 1, CPUShare: 0.3, SendLagP99: 0.4}, nil},
		// exactly at the CPU threshold counts: the generator had nothing left
		{"CPU at the limit", bench.Generator{CPUs: 1, CPUShare: 0.90}, []string{"generator-bound: generator CPU 90% of its 1 CPU(s)"}},
		// a mean below the bound hides its peak seconds (over the 10 s
		// window: a fifth of them, 2, reaching it flag it; 1 does not)
		{"peak seconds", bench.Generator{CPUs: 1, CPUShare: 0.84, CPUSharePeak: 0.97, CPUBoundSeconds: 3},
			[]string{"generator-bound: generator CPU at 90% or more of its 1 CPU(s) in 3 of 10 seconds, peak 97% (mean 84%) (limit 90%)"}},
		{"two peak seconds", bench.Generator{CPUs: 1, CPUShare: 0.80, CPUSharePeak: 0.92, CPUBoundSeconds: 2},
			[]string{"generator-bound: generator CPU at 90% or more of its 1 CPU(s) in 2 of 10 seconds"}},
		{"one peak second", bench.Generator{CPUs: 1, CPUShare: 0.80, CPUSharePeak: 0.95, CPUBoundSeconds: 1}, nil},
		{"late sends", bench.Generator{CPUs: 1, SendLagP99: 5.1}, []string{"generator-bound: send lag p99 5.1 ms"}},
		// 5 ms itself is within the bound
		{"lag at the limit", bench.Generator{CPUs: 1, SendLagP99: 5}, nil},
		{"drops", bench.Generator{CPUs: 1, Dropped: 3}, []string{"generator-bound: 3 requests dropped"}},
		{"all three, one flag", bench.Generator{CPUs: 2, CPUShare: 0.97, SendLagP99: 12, Dropped: 40},
			[]string{"generator-bound: generator CPU 97% of its 2 CPU(s) (limit 90%); send lag p99 12.0 ms (limit 5 ms); 40 requests dropped"}},
		// ours tells its own lag from waits for a connection
		{"waits, not late", bench.Generator{CPUs: 1, Connections: 95, SendLagP99: 40, SchedulingLagP99: 0.8, ConnectionWaitP99: 39, Late: 1200},
			[]string{"connection-bound: requests waited for a connection, all 95 in flight at the target: wait p99 39.0 ms (limit 5 ms), 1200 requests"}},
		{"late by itself", bench.Generator{CPUs: 1, SendLagP99: 9, SchedulingLagP99: 8.5, ConnectionWaitP99: 0.2},
			[]string{"generator-bound: scheduling lag p99 8.5 ms (limit 5 ms)"}},
		{"both", bench.Generator{CPUs: 1, Connections: 64, SendLagP99: 30, SchedulingLagP99: 7, ConnectionWaitP99: 25, Late: 10},
			[]string{"generator-bound: scheduling lag p99 7.0 ms", "connection-bound: requests waited"}},
		// the API's own work during a 10 s window: 50 requests are fine, 200 are not
		{"quiet API", bench.Generator{CPUs: 1, APIRequests: 50}, nil},
		{"busy API", bench.Generator{CPUs: 1, APIRequests: 200}, []string{"disturbed: the daemon's API served 200 requests (20/s)"}},
		// the hypervisor's steal: a second at 5 % disturbs the window, a
		// mean of 1 % with its worst second at 4 % does not; the lags it
		// caused are still said as they are
		{"a little steal", bench.Generator{CPUs: 1, StealShare: 0.01, StealSharePeak: 0.04}, nil},
		{"steal", bench.Generator{CPUs: 1, StealShare: 0.16, StealSharePeak: 0.30, SchedulingLagP99: 14.3, ConnectionWaitP99: 39.4, Connections: 25, Late: 927},
			[]string{"generator-bound: scheduling lag p99 14.3 ms", "connection-bound: requests waited",
				"disturbed: the machine's hypervisor took 16% of its CPU time, 30% in its worst second (steal, limit 5%)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			flags := tt.g.Flags(10) // a 10 s window
			if len(flags) != len(tt.want) {
				t.Fatalf("flags %+v, want %d", flags, len(tt.want))
			}
			for i, f := range flags {
				if got := f.Kind + ": " + f.Reason; !strings.HasPrefix(got, tt.want[i]) {
					t.Errorf("flag %q, want it to start %q", got, tt.want[i])
				}
			}
		})
	}
}

// A window of one second (a bucket) or a few: its peak seconds count
// against its own length.
func TestGeneratorFlagsShortWindows(t *testing.T) {
	for _, tt := range []struct {
		name    string
		g       bench.Generator
		seconds float64
		flagged bool
	}{
		{"a second at the bound", bench.Generator{CPUs: 1, CPUShare: 0.93, CPUSharePeak: 0.93, CPUBoundSeconds: 1}, 1, true},
		{"a second below it", bench.Generator{CPUs: 1, CPUShare: 0.85, CPUSharePeak: 0.85}, 1, false},
		// one of 3 s is a third: more than a fifth
		{"one of three", bench.Generator{CPUs: 1, CPUShare: 0.80, CPUSharePeak: 0.95, CPUBoundSeconds: 1}, 3, true},
		// one of 8 s is an eighth
		{"one of eight", bench.Generator{CPUs: 1, CPUShare: 0.80, CPUSharePeak: 0.95, CPUBoundSeconds: 1}, 8, false},
		{"two of eight", bench.Generator{CPUs: 1, CPUShare: 0.80, CPUSharePeak: 0.95, CPUBoundSeconds: 2}, 8, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			flagged := false
			for _, f := range tt.g.Flags(tt.seconds) {
				flagged = flagged || f.Kind == bench.FlagGeneratorBound
			}
			if flagged != tt.flagged {
				t.Errorf("generator-bound %t over %g s, want %t", flagged, tt.seconds, tt.flagged)
			}
		})
	}
}

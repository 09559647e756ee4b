package diagnosis_test

import (
	"reflect"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/diagnosis"
)

func TestAgainstJMC(t *testing.T) {
	score := func(v float64) *float64 { return &v }
	jmc := &bench.JMCAnalysis{Version: "9.1.0", Rules: []bench.JMCRule{
		{ID: "JavaBlocking", Severity: "WARNING", Score: score(100), Summary: "Threads were blocked on monitors."},
		{ID: "CompareCpu", Severity: "WARNING", Score: score(84), Summary: "Other processes used the CPU."},
		{ID: "HighGc", Severity: "INFO", Score: score(37)},
	}}
	for _, tt := range []struct {
		name string
		whys []bench.Diagnosis
		want []string
	}{
		// A lock-bound stage agrees with JavaBlocking; CompareCpu is no
		// verdict's, and an INFO is no warning.
		{"agree", []bench.Diagnosis{{Stage: 1, Causes: []bench.Cause{{Kind: bench.VerdictLockBound}}}}, nil},
		// JMC warns of blocking where the why found none; the why's
		// gc-bound stage had no GC rule warn.
		{"disagree", []bench.Diagnosis{{Stage: 0}, {Stage: 2, Causes: []bench.Cause{{Kind: bench.VerdictGCBound}}}}, []string{
			"the why says gc-bound (stage 3) where none of JMC's GcPauseRatio, LongGcPause, HighGc, GcStall, FullGc, ApplicationHalts warned",
			"JMC warns JavaBlocking (score 100: Threads were blocked on monitors.), where no stage's why is lock-bound",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := diagnosis.AgainstJMC(jmc, tt.whys); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
	if got := diagnosis.AgainstJMC(&bench.JMCAnalysis{Error: "no JDK"}, nil); got != nil {
		t.Errorf("an analysis that did not run: %q", got)
	}
}

package check_test

import (
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/check"
)

func TestParseObjective(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		tests := []struct {
			in, want string // want: the objective written back
		}{
			// the three terms of the issue
			{"go:throughput>=100,p99<=250ms,errors<=1%", "go:throughput>=100,p99<=250ms,errors<=1%"},
			// spaces, a unit after the rate, and bench's spellings of a bound
			{" java-virtual@21 : throughput > 12.5 req/s , p999<1.5s, errors<=0.001", "java-virtual@21:throughput>=12.5,p999<=1.5s,errors<=0.1%"},
			// a target of one's own, whose variant has commas and equal signs before the colon
			{"orders@virtual,jdk=21:p50<=20ms", ""},
			// a capacity search's answer, a floor as throughput is
			{"java-virtual:capacity>=800 req/s,p99<=300ms", "java-virtual:capacity>=800,p99<=300ms"},
		}
		for _, tt := range tests {
			o, err := check.ParseObjective(tt.in)
			if err != nil {
				t.Errorf("ParseObjective(%q): %v", tt.in, err)
				continue
			}
			if tt.want != "" && o.String() != tt.want {
				t.Errorf("ParseObjective(%q) = %q, want %q", tt.in, o, tt.want)
			}
		}
	})
	t.Run("Err", func(t *testing.T) {
		tests := []struct {
			in, want string // want: in the message
		}{
			{"p99<=250ms", "want TARGET:TERMS"},                 // no target
			{":p99<=250ms", "want TARGET:TERMS"},                // an empty target
			{"go:throughput<=100", "want throughput>=N"},        // throughput is a floor
			{"go:throughput>=-1", "want throughput>=N"},         // not a rate
			{"go:throughput>=fast", "want throughput>=N"},       // not a number
			{"go:capacity<=100", "want capacity>=N"},            // capacity is a floor
			{"go:p99>=250ms", "want metric<=value"},             // a percentile is a ceiling
			{"go:p42<=1s", `unknown metric "p42"`},              // bench's parser names the metric
			{"go:drops<=1%", "errors, which count the dropped"}, // drops are errors here
			{"go:p99<=1s,p99<=2s", "p99 is bounded twice"},      // twice
			{"go:", "empty"}, // no term
		}
		for _, tt := range tests {
			_, err := check.ParseObjective(tt.in)
			var e *bench.Error
			if !asError(err, &e) || e.Field != check.FieldObjective || !strings.Contains(e.Message, tt.want) {
				t.Errorf("ParseObjective(%q) = %v, want %s: ...%s...", tt.in, err, check.FieldObjective, tt.want)
			}
		}
	})
}

func TestCheckTargets(t *testing.T) {
	objectives := []check.Objective{mustObjective(t, "go:p99<=1s"), mustObjective(t, "java-virtual:p99<=1s")}
	if err := check.CheckTargets(objectives, []string{"go", "java-virtual"}, false); err != nil {
		t.Errorf("both targets in the run: %v", err)
	}
	err := check.CheckTargets(objectives, []string{"go", "java-platform"}, false)
	if got, want := bench.ErrorMessage(err), `--objective: "java-virtual:p99<=1s": the run has no target "java-virtual" (it has go, java-platform)`; got != want {
		t.Errorf("err = %q, want %q", got, want)
	}
	capacity := []check.Objective{mustObjective(t, "go:capacity>=100")}
	if err := check.CheckTargets(capacity, []string{"go"}, true); err != nil {
		t.Errorf("a capacity floor on a search: %v", err)
	}
	if err := check.CheckTargets(capacity, []string{"go"}, false); !strings.Contains(bench.ErrorMessage(err), "the spec searches none") {
		t.Errorf("a capacity floor on a run that searches none: %v", err)
	}
}

func TestSubjectLabels(t *testing.T) {
	spec := bench.RunSpec{Targets: []string{"go", "java-virtual"}}
	if got := check.SubjectLabels(spec); strings.Join(got, ",") != "go,java-virtual" {
		t.Errorf("targets: %q", got)
	}
	spec.Cases = []bench.Case{{Name: "pinned", Target: "java-virtual"}, {Name: "free", Target: "java-virtual"}}
	if got := check.SubjectLabels(spec); strings.Join(got, ",") != "pinned,free" {
		t.Errorf("cases: %q", got)
	}
}

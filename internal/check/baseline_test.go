package check_test

import (
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/check"
)

func TestParseBaseline(t *testing.T) {
	tests := []struct {
		in   string
		want check.Baseline
	}{
		{"r01jq3v8k2m4n6p8q", check.Baseline{RunID: "r01jq3v8k2m4n6p8q"}},
		{"label:branch=main", check.Baseline{Key: "branch", Value: "main"}},
		{"label:ref=refs/heads/a=b", check.Baseline{Key: "ref", Value: "refs/heads/a=b"}}, // the first = splits
	}
	for _, tt := range tests {
		got, err := check.ParseBaseline(tt.in)
		if err != nil || got != tt.want || got.String() != tt.in {
			t.Errorf("ParseBaseline(%q) = %+v (%q), %v; want %+v", tt.in, got, got.String(), err, tt.want)
		}
	}
	for _, bad := range []string{"", "label:branch", "label:=main"} {
		_, err := check.ParseBaseline(bad)
		var e *bench.Error
		if !asError(err, &e) || e.Field != check.FieldBaseline {
			t.Errorf("ParseBaseline(%q) = %v, want a %s error", bad, err, check.FieldBaseline)
		}
	}
}

func TestBaseline_Picks(t *testing.T) {
	b := check.Baseline{Key: "branch", Value: "main"}
	labelled := func(status bench.RunStatus, name string, labels map[string]string) *bench.Run {
		return &bench.Run{ID: "r1", Name: name, Status: status, Spec: bench.RunSpec{Labels: labels}}
	}
	main := map[string]string{"branch": "main", "commit": "abc"}
	tests := []struct {
		name string
		run  *bench.Run
		want bool
	}{
		{"OK", labelled(bench.RunSucceeded, "nightly", main), true},
		{"OtherBranch", labelled(bench.RunSucceeded, "nightly", map[string]string{"branch": "dev"}), false},
		{"NoLabels", labelled(bench.RunSucceeded, "nightly", nil), false},
		{"OtherName", labelled(bench.RunSucceeded, "nightly-2", main), false},
		{"Failed", labelled(bench.RunFailed, "nightly", main), false},
	}
	for _, tt := range tests {
		if got := b.Picks(tt.run, "nightly"); got != tt.want {
			t.Errorf("%s: Picks = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCheckRun(t *testing.T) {
	run := &bench.Run{ID: "r1", Name: "nightly", Status: bench.RunSucceeded}
	if err := check.CheckRun(run, "nightly"); err != nil {
		t.Errorf("same name: %v", err)
	}
	tests := []struct {
		name   string
		change func(*bench.Run)
		want   string
	}{
		{"OtherSpec", func(r *bench.Run) { r.Name = "smoke" }, `--baseline: run r1 is of spec "smoke", not "nightly": compare runs of the same spec`},
		{"Canceled", func(r *bench.Run) { r.Status = bench.RunCanceled }, "--baseline: run r1 canceled: a baseline must have succeeded"},
	}
	for _, tt := range tests {
		r := *run
		tt.change(&r)
		if got := bench.ErrorMessage(check.CheckRun(&r, "nightly")); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestBaseline_CheckName(t *testing.T) {
	byLabel, byID := check.Baseline{Key: "branch", Value: "main"}, check.Baseline{RunID: "r1"}
	if byLabel.CheckName("nightly") != nil || byID.CheckName("") != nil {
		t.Error("a named spec, or a baseline by ID, refused")
	}
	if err := byLabel.CheckName(""); bench.ErrorCode(err) != bench.EINVALID {
		t.Errorf("a baseline by label for an unnamed spec: %v", err)
	}
}

package check_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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
		{"file:bench/main.json", check.Baseline{File: "bench/main.json"}},
	}
	for _, tt := range tests {
		got, err := check.ParseBaseline(tt.in)
		if err != nil || got != tt.want || got.String() != tt.in {
			t.Errorf("ParseBaseline(%q) = %+v (%q), %v; want %+v", tt.in, got, got.String(), err, tt.want)
		}
	}
	for _, bad := range []string{"", "label:branch", "label:=main", "file:", "file: "} {
		_, err := check.ParseBaseline(bad)
		var e *bench.Error
		if !asError(err, &e) || e.Field != check.FieldBaseline {
			t.Errorf("ParseBaseline(%q) = %v, want a %s error", bad, err, check.FieldBaseline)
		}
	}
}

// A baseline kept in a file is a run document of the same spec that
// succeeded; anything else is refused naming --baseline.
func TestBaseline_ReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, run any) string {
		path := filepath.Join(dir, name)
		data, _ := json.Marshal(run)
		if s, ok := run.(string); ok {
			data = []byte(s)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("main.json", bench.Run{ID: "r1", Name: "nightly", Status: bench.RunSucceeded, Targets: []bench.TargetResult{{Target: "go"}}})
	run, err := check.Baseline{File: good}.ReadFile("nightly")
	if err != nil || run.ID != "r1" || run.Targets[0].Target != "go" {
		t.Fatalf("ReadFile = %+v, %v; want run r1", run, err)
	}
	for _, tt := range []struct{ path, name, says string }{
		{good, "other", `is of spec "nightly", not "other"`},
		{write("failed.json", bench.Run{ID: "r2", Name: "nightly", Status: bench.RunFailed, Targets: []bench.TargetResult{{Target: "go"}}}), "nightly", "a baseline must have succeeded"},
		{write("list.json", `{"runs": []}`), "nightly", "no run ID or no target"},
		{write("text.json", "not json"), "nightly", "is not a run document"},
		{filepath.Join(dir, "missing.json"), "nightly", "missing.json"},
	} {
		_, err := check.Baseline{File: tt.path}.ReadFile(tt.name)
		var e *bench.Error
		if !asError(err, &e) || e.Field != check.FieldBaseline || !strings.Contains(e.Message, tt.says) {
			t.Errorf("ReadFile(%s) = %v, want a %s error saying %q", tt.path, err, check.FieldBaseline, tt.says)
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

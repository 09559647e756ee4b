package bench_test

import (
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// TestCheckTargetRefUnavailable: a target this host cannot build is refused
// by name, with why, as the field at fault.
func TestCheckTargetRefUnavailable(t *testing.T) {
	infos := []bench.TargetInfo{{Name: "go", Unavailable: "the go command is not on PATH"}, {Name: "java-virtual"}}
	if err := bench.CheckTargetRef("java-virtual", infos, "targets[0]"); err != nil {
		t.Errorf("an available target: %v", err)
	}
	err := bench.CheckTargetRef("go", infos, "targets[1]")
	if got, want := bench.ErrorMessage(err), "targets[1]: target go cannot be built here: the go command is not on PATH"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
	if got, want := bench.ErrorCode(err), bench.EINVALID; got != want {
		t.Errorf("code = %q, want %q", got, want)
	}
}

// TestParamDigitsOnly: an integer parameter is decimal digits, as the
// document's patterns say; strconv's sign or spaces are refused.
func TestParamDigitsOnly(t *testing.T) {
	e, _ := bench.LookupEndpoint("heavy")
	for v, ok := range map[string]bool{"0": true, "60000": true, "0050": true, "+5": false, "-0": false, " 5": false, "": false, "60001": false} {
		err := e.CheckParams(map[string]string{"duration": v}, "workload.requests[0]")
		if got := err == nil; got != ok {
			t.Errorf("duration=%q: accepted %v, want %v (%v)", v, got, ok, err)
		}
	}
}

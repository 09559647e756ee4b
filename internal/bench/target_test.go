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

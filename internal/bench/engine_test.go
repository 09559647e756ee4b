package bench_test

import (
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

func TestValidEngineName(t *testing.T) {
	for name, want := range map[string]bool{
		"local": true, "lab": true, "lab-2": true, "a": true,
		"": false, "Lab": false, "2lab": false, "lab_2": false, "tcp://lab:2376": false, "lab.example": false,
		strings.Repeat("a", bench.MaxEngineName+1): false,
	} {
		if got := bench.ValidEngineName(name); got != want {
			t.Errorf("ValidEngineName(%q) = %t, want %t", name, got, want)
		}
	}
}

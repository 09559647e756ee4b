package load

import "testing"

// This machine's counters are read, and grow.
func TestMachineStealReads(t *testing.T) {
	steal, total := machineSteal()
	if total <= 0 || steal < 0 || steal > total {
		t.Fatalf("machineSteal() = %d, %d", steal, total)
	}
}

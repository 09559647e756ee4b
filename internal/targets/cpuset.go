package targets

import "fmt"

// SplitCPUs divides n host CPUs between the target and the load generator so
// that they do not steal each other's cycles: the target gets the last CPU
// and the load generator the others. With fewer than two CPUs there is
// nothing to split; applied is false and both sets are empty (unpinned).
func SplitCPUs(n int) (targetSet, loadSet string, applied bool) {
	if n < 2 {
		return "", "", false
	}
	targetSet = fmt.Sprint(n - 1)
	loadSet = "0"
	if n > 2 {
		loadSet = fmt.Sprintf("0-%d", n-2)
	}
	return targetSet, loadSet, true
}

//go:build !linux

package server_test

import "testing"

// unansweredURL is Linux only: elsewhere the tests that need it skip.
func unansweredURL(t *testing.T) string {
	t.Helper()
	t.Skip("a listener that leaves connects unanswered needs Linux")
	return ""
}

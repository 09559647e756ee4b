package targets

import (
	"strings"
	"testing"
)

// The runtime a JVM of one's own really runs is read from Micrometer's
// jvm_info, as the built-in Java target's /info names it.
func TestRuntimeOfExposition(t *testing.T) {
	for _, tt := range []struct{ exposition, want string }{
		{"# TYPE jvm_info gauge\njvm_info{runtime=\"OpenJDK Runtime Environment\",vendor=\"Eclipse Adoptium\",version=\"21.0.5+11-LTS\"} 1.0\n", "OpenJDK 21.0.5+11-LTS"},
		{"jvm_threads_live_threads 20.0\njvm_info{version=\"25.0.1+8\"} 1\n", "Java 25.0.1+8"},
		{"jvm_threads_live_threads 20.0\n", ""},
	} {
		if got := runtimeOfExposition(strings.NewReader(tt.exposition)); got != tt.want {
			t.Errorf("runtime of %q = %q, want %q", tt.exposition, got, tt.want)
		}
	}
}

package targets

import (
	"testing"
	"time"
)

// A run's own bound outranks the entry's, which outranks the default; the
// default leaves a start slowed by a busy engine room (CI saw one take a
// minute) rather than ending it at a minute.
func TestHealthTimeoutPrecedence(t *testing.T) {
	entry := Entry{Listening: Listening{HealthTimeout: 90 * time.Second}}
	for _, tc := range []struct {
		name  string
		entry Entry
		opts  StartOptions
		want  time.Duration
	}{
		{"default", Entry{}, StartOptions{}, DefaultHealthTimeout},
		{"entry", entry, StartOptions{}, 90 * time.Second},
		{"run", entry, StartOptions{HealthTimeout: 7 * time.Second}, 7 * time.Second},
	} {
		if got := healthTimeout(tc.entry, tc.opts); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if DefaultHealthTimeout < 2*time.Minute {
		t.Errorf("default %s: a start CI saw take 60 s on a busy engine would fail", DefaultHealthTimeout)
	}
}

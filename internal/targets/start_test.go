package targets

import (
	"testing"
	"time"
)

// A run's own bound outranks the entry's, which outranks the operator's,
// which outranks the default; the
// default leaves a start slowed by a busy engine room (CI saw one take a
// minute) rather than ending it at a minute.
func TestHealthTimeoutPrecedence(t *testing.T) {
	entry := Entry{Listening: Listening{HealthTimeout: 90 * time.Second}}
	for _, tc := range []struct {
		name     string
		entry    Entry
		opts     StartOptions
		operator time.Duration
		want     time.Duration
	}{
		{"default", Entry{}, StartOptions{}, 0, DefaultHealthTimeout},
		{"operator", Entry{}, StartOptions{}, 6 * time.Minute, 6 * time.Minute},
		{"entry", entry, StartOptions{}, 6 * time.Minute, 90 * time.Second},
		{"run", entry, StartOptions{HealthTimeout: 7 * time.Second}, 6 * time.Minute, 7 * time.Second},
	} {
		if got := healthTimeout(tc.entry, tc.opts, tc.operator); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if DefaultHealthTimeout < 2*time.Minute {
		t.Errorf("default %s: a start CI saw take 60 s on a busy engine would fail", DefaultHealthTimeout)
	}
}

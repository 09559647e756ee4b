package targets

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestAnswersAsksASlowPathAgain: a metrics path that does not answer in
// time on its first asking (a fresh JVM loading its registry) is asked
// again and kept; one that answers 404 is dropped at its first answer.
func TestAnswersAsksASlowPathAgain(t *testing.T) {
	var asked atomic.Int64
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if asked.Add(1) == 1 {
			time.Sleep(300 * time.Millisecond)
		}
	}))
	defer slow.Close()
	hc := &http.Client{Timeout: 100 * time.Millisecond}
	if !answers(t.Context(), hc, slow.URL, 3) {
		t.Errorf("a path slow on its first asking: dropped after %d askings, want kept", asked.Load())
	}
	if got := asked.Load(); got != 2 {
		t.Errorf("asked %d times, want 2", got)
	}

	var missing atomic.Int64
	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		missing.Add(1)
		http.NotFound(w, r)
	}))
	defer gone.Close()
	if answers(t.Context(), hc, gone.URL, 3) {
		t.Error("a path answering 404: kept, want dropped")
	}
	if got := missing.Load(); got != 1 {
		t.Errorf("a 404 asked %d times, want once", got)
	}
}

// Package profiletest is what the integration tests of the profiling
// packages (internal/jfr, internal/goprof) share: the host-wide attack
// lock, so that their load does not disturb a measurement running beside
// them, and a plain closed-loop load.
package profiletest

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// LockHost waits for the host-wide attack lock the runner takes
// (/tmp/threadbench-attack.lock) and returns its release.
func LockHost(t testing.TB) func() {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "threadbench-attack.lock"), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	return func() { f.Close() }
}

// Loaded is what a load did: when it ran, the requests that succeeded and
// their mean latency.
type Loaded struct {
	From, To time.Time
	OK       int64
	MeanMs   float64
}

// Seconds returns how long the load ran.
func (l Loaded) Seconds() float64 { return l.To.Sub(l.From).Seconds() }

// Load sends GET url from clients loops for d, each sending its next
// request when the last one is answered, and fails the test for any
// request that did not get a 200.
func Load(t testing.TB, url string, clients int, d time.Duration) Loaded {
	t.Helper()
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer hc.CloseIdleConnections()
	var ok, failed, nanos atomic.Int64
	var wg sync.WaitGroup
	l := Loaded{From: time.Now()}
	deadline := l.From.Add(d)
	for range clients {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				sent := time.Now()
				if get(hc, url) {
					ok.Add(1)
					nanos.Add(int64(time.Since(sent)))
				} else {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	l.To, l.OK = time.Now(), ok.Load()
	if failed.Load() > 0 {
		t.Errorf("%d of %d requests to %s failed", failed.Load(), l.OK+failed.Load(), url)
	}
	if l.OK > 0 {
		l.MeanMs = float64(nanos.Load()) / float64(l.OK) / 1e6
	}
	return l
}

// get sends one request and reports whether it got a 200.
func get(hc *http.Client, url string) bool {
	resp, err := hc.Get(url)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err == nil && resp.StatusCode == http.StatusOK
}

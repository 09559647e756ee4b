package server

import (
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestNativeSleepResumesAfterSignals interrupts the sleeping thread with
// signals, as the runtime's preemption does, and checks that nativeSleep
// still sleeps its whole duration instead of returning at the first EINTR.
func TestNativeSleepResumesAfterSignals(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pid, tid := syscall.Getpid(), syscall.Gettid()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ticker := time.NewTicker(10 * time.Millisecond)
		defer ticker.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ticker.C:
				// SIGURG is the runtime's own preemption signal; a stray
				// one is harmless. nanosleep is never restarted after a
				// handler, so each one makes it fail with EINTR.
				_ = syscall.Tgkill(pid, tid, syscall.SIGURG)
			}
		}
	}()

	const d = 200 * time.Millisecond
	start := time.Now()
	nativeSleep(d)
	elapsed := time.Since(start)
	close(stop)
	wg.Wait()
	if elapsed < d {
		t.Fatalf("nativeSleep(%v) returned after %v", d, elapsed)
	}
}

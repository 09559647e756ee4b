package server

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestWakeDelayExposesCountAndSum(t *testing.T) {
	w := newWakeDelay()
	w.record(3 * time.Millisecond)
	w.record(-time.Microsecond) // an early reading is not a negative wait
	reg := prometheus.NewRegistry()
	reg.MustRegister(w)
	want := `# HELP threadbench_wake_delay_seconds How late a goroutine ran again after a sleep of 10ms ended.
# TYPE threadbench_wake_delay_seconds summary
threadbench_wake_delay_seconds_sum 0.003
threadbench_wake_delay_seconds_count 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), wakeDelayName); err != nil {
		t.Error(err)
	}
}

// A probe woken while every P spins, with more spinning goroutines queued,
// runs late by about their time; the runtime preempts a spinner every 10
// ms, so the probe waits its turn among them rather than for all of them.
func TestWakeDelayProbeWaitsForAP(t *testing.T) {
	w := newWakeDelay()
	w.start()
	defer w.close()
	for w.wakes.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	idleWakes, idleLate := w.wakes.Load(), w.late.Load()
	var spinners sync.WaitGroup
	for range 8 * runtime.GOMAXPROCS(0) {
		spinners.Go(func() {
			for end := time.Now().Add(150 * time.Millisecond); time.Now().Before(end); {
			}
		})
	}
	spinners.Wait()
	wakes, late := w.wakes.Load()-idleWakes, w.late.Load()-idleLate
	if wakes == 0 {
		t.Fatal("the probe never woke while the goroutines spun")
	}
	t.Logf("idle: %s late over %d wakes; spinning: %s over %d", time.Duration(idleLate/idleWakes), idleWakes, time.Duration(late/wakes), wakes)
	if mean := time.Duration(late / wakes); mean < 5*time.Millisecond {
		t.Errorf("a probe woken among %d spinning goroutines ran %s late on average over %d wakes, want 5ms or more", 8*runtime.GOMAXPROCS(0), mean, wakes)
	}
	w.close()
	w.close()
}

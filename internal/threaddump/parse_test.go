package threaddump_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/jfr"
	"github.com/threadbench/threadbench/internal/threaddump"
)

// The files under testdata are the sampler's, written on JDK 21 and 25 by
// a program whose 8 virtual threads share a semaphore of 2 permits, each
// holding one for a 20 ms sleep: at any moment some 6 wait in
// Semaphore.acquire and 2 sleep.
func TestParseVirtualWaits(t *testing.T) {
	for _, file := range []string{"testdata/semaphore-virtual-21.txt", "testdata/semaphore-virtual-25.txt"} {
		t.Run(file, func(t *testing.T) {
			s := parseFile(t, file)
			if got, want := s.Period, 100*time.Millisecond; got != want {
				t.Errorf("period %s, want %s", got, want)
			}
			if len(s.Samples) < 5 || s.Stopped != "" {
				t.Fatalf("%d samples (stopped %q), want some and no stop", len(s.Samples), s.Stopped)
			}
			var waiting, sleeping float64
			for _, ev := range s.Events() {
				if !ev.Thread.Virtual || !onStack(ev, "Load.lambda$main$0") {
					continue
				}
				switch {
				case onStack(ev, "java.util.concurrent.Semaphore.acquire"):
					waiting += ev.Duration.Seconds()
				case onStack(ev, "java.lang.Thread.sleep"):
					sleeping += ev.Duration.Seconds()
				}
			}
			if share := waiting / (waiting + sleeping); share < 0.6 || share > 0.9 {
				t.Errorf("virtual threads waiting for the semaphore %.2f of their time (%.1f s against %.1f asleep), want about 0.75", share, waiting, sleeping)
			}
			mean, share := s.Cost()
			if mean <= 0 || share <= 0 || share > 1 {
				t.Errorf("cost %s a dump, %.3f of a CPU: want both measured", mean, share)
			}
		})
	}
}

// A JDK 25 dump says the state and what a thread parks on; JDK 21's does
// not, and the groups say "" rather than a guess.
func TestParseStates(t *testing.T) {
	s25, s21 := parseFile(t, "testdata/semaphore-virtual-25.txt"), parseFile(t, "testdata/semaphore-virtual-21.txt")
	if g, ok := groupOn(s25, "java.util.concurrent.Semaphore.acquire"); !ok || g.State != "WAITING" || !strings.HasPrefix(g.Blocker, "java.util.concurrent.Semaphore") {
		t.Errorf("JDK 25 semaphore wait %+v, want WAITING on the semaphore's sync", g)
	}
	if g, ok := groupOn(s21, "java.util.concurrent.Semaphore.acquire"); !ok || g.State != "" || g.Blocker != "" {
		t.Errorf("JDK 21 semaphore wait %+v, want no state and no lock (its dump says neither)", g)
	}
}

func TestParseBadInput(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "no header line"},
		{"not the sampler's", "hello\nworld\n", "unknown line"},
		{"bad period", "P\tx\t25\nS\t1\t1\t1\n", "period"},
		{"threads before a sample", "P\t100\t25\nK\t0\ta.B.c\nT\t0\tv\t-\t1\t-\tx\nS\t1\t1\t1\n", "before any sample"},
		{"unknown stack", "P\t100\t25\nS\t1\t1\t1\nT\t7\tv\t-\t1\t-\tx\nS\t2\t1\t1\n", "unknown stack"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := threaddump.Parse(strings.NewReader(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// A JVM killed while writing leaves its last sample cut short: it is left
// out, the rest kept.
func TestParseCutShort(t *testing.T) {
	text := "P\t100\t25\nK\t0\ta.B.c:3\nS\t1000\t50\t1\nT\t0\tv\tWAITING\t1\t-\tx\nS\t1100\t50\t1\nT\t0\tv\tWAI"
	s, err := threaddump.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Samples) != 1 || len(s.Samples[0].Groups) != 1 {
		t.Fatalf("samples %+v, want the whole first one only", s.Samples)
	}
	if f := s.Samples[0].Groups[0].Stack[0]; f != (jfr.Frame{Class: "a.B", Method: "c", Line: 3}) {
		t.Errorf("frame %+v, want a.B.c:3", f)
	}
}

func parseFile(t *testing.T, name string) *threaddump.Samples {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := threaddump.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func onStack(ev jfr.Event, name string) bool {
	return slices.ContainsFunc(ev.Stack, func(f jfr.Frame) bool { return f.Name() == name })
}

func groupOn(s *threaddump.Samples, name string) (threaddump.Group, bool) {
	for _, sample := range s.Samples {
		for _, g := range sample.Groups {
			if slices.ContainsFunc(g.Stack, func(f jfr.Frame) bool { return f.Name() == name }) {
				return g, true
			}
		}
	}
	return threaddump.Group{}, false
}

// A sample says its CPU and the wait the sampler meant before the next:
// the last sample stands for that wait (its JVM stopped before it), and
// the cost's share is of CPU, not of the wall clock.
func TestParseNextAndCPU(t *testing.T) {
	text := "P\t1000\t25\t0.02\nK\t0\ta.B.c:3\nS\t1000\t400000\t1\t50000\t2500\nT\t0\tp\tWAITING\t1\t-\tx\nS\t3500\t400000\t1\t50000\t9000\nT\t0\tp\tWAITING\t1\t-\tx\n"
	s, err := threaddump.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := []time.Duration{s.Interval(0), s.Interval(1)}; got[0] != 2500*time.Millisecond || got[1] != 9*time.Second {
		t.Errorf("intervals %v, want 2.5 s to the next and the 9 s the last meant to wait", got)
	}
	if mean, share := s.Cost(); mean != 400*time.Millisecond || share < 0.0086 || share > 0.0088 {
		t.Errorf("cost %s a dump, %.4f of a CPU; want 400 ms on the wall and 0.1 s of CPU over 11.5 s", mean, share)
	}
}

// The same program's 8 virtual threads, counted in each dump: all eight
// alive; most parked (six waiting for the semaphore, two asleep, each
// asleep unmounted too), none while running its few instructions.
func TestVirtualCounts(t *testing.T) {
	for _, file := range []string{"testdata/semaphore-virtual-21.txt", "testdata/semaphore-virtual-25.txt"} {
		s := parseFile(t, file)
		counts := s.Virtual()
		if len(counts) != len(s.Samples) {
			t.Fatalf("%s: %d counts for %d dumps", file, len(counts), len(s.Samples))
		}
		parked := 0
		for i, c := range counts {
			if c.Alive != 8 || c.Parked > c.Alive || !c.At.Equal(s.Samples[i].At) {
				t.Errorf("%s: dump %d: %+v, want 8 alive, at most as many parked, at the dump's time", file, i, c)
			}
			parked += c.Parked
		}
		if mean := float64(parked) / float64(len(counts)); mean < 6 {
			t.Errorf("%s: %.1f parked on average, want 6 to 8 (each waits or sleeps nearly all its time)", file, mean)
		}
	}
	// The built-in target's wake-up probe, a virtual thread asleep on no
	// request's behalf, is not counted among the service's.
	sleep := jfr.Frame{Class: "java.lang.VirtualThread", Method: "parkNanos"}
	probe := &threaddump.Samples{Samples: []threaddump.Sample{{Groups: []threaddump.Group{
		{Count: 1, Virtual: true, Stack: []jfr.Frame{sleep, {Class: "io.threadbench.server.WakeDelay", Method: "probe"}}},
		{Count: 2, Virtual: true, Stack: []jfr.Frame{sleep, {Class: "io.threadbench.server.SleepWork", Method: "sleep"}}},
	}}}}
	if got := probe.Virtual(); len(got) != 1 || got[0].Alive != 2 || got[0].Parked != 2 {
		t.Errorf("two requests' virtual threads beside the wake-up probe: %+v, want 2 alive, 2 parked", got)
	}
	platform := &threaddump.Samples{Samples: []threaddump.Sample{{Groups: []threaddump.Group{{Count: 3, Name: "exec-#"}}}}}
	if got := platform.Virtual(); got != nil {
		t.Errorf("platform threads only: %+v, want nil", got)
	}
}

package contracttest

import (
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// The contract's defaults the checks lean on.
const durationDefault = 100

// heavySlack is how much longer than asked heavy?duration=200 may take.
const heavySlack = 250 * time.Millisecond

// fanoutModes are the mode words every target accepts.
var fanoutModes = []string{bench.ModePool, bench.ModeUnbounded, bench.ModeSemaphore, bench.ModeVirtual, bench.ModeGoroutines}

// Run checks every endpoint of the contract against the server at baseURL,
// one subtest each, the metrics last so that they have requests to count.
// The fan-out endpoints are checked only when opts.Downstream is set.
func Run(t *testing.T, baseURL string, opts Options) {
	t.Helper()
	if err := checkThreadModel(opts.ThreadModel); err != nil {
		t.Fatal(err)
	}
	c := newChecker(baseURL, opts)
	ctx := t.Context()
	check(t, "health", func() error { return c.health(ctx) })
	check(t, "info", func() error { return c.info(ctx) })
	check(t, "light", func() error {
		_, _, err := c.work(ctx, "/api/light", "light", 0)
		return err
	})
	check(t, "heavy default", func() error {
		_, elapsed, err := c.work(ctx, "/api/heavy", "heavy", durationDefault)
		if err != nil {
			return err
		}
		return checkElapsed("/api/heavy", elapsed, durationDefault*time.Millisecond, 0)
	})
	check(t, "heavy 200ms", func() error { return c.sleep(ctx, "heavy", 200, 200*time.Millisecond+heavySlack) })
	check(t, "cpu work=1", func() error { return c.cpu(ctx, 1, cpuResult1) })
	check(t, "cpu work=1000", func() error { return c.cpu(ctx, 1000, cpuResult1000) })
	check(t, "native 100ms", func() error { return c.sleep(ctx, "native", 100, 0) })
	check(t, "synchronized 100ms", func() error { return c.sleep(ctx, "synchronized", 100, 0) })
	check(t, "lock 100ms", func() error { return c.sleep(ctx, "lock", 100, 0) })
	check(t, "heavy 2x60ms logged", func() error { return c.heavyTwice(ctx, 60) })
	t.Run("bad parameters", func(t *testing.T) {
		for _, bp := range badParams() {
			name := strings.TrimPrefix(bp.path, "/api/")
			check(t, name, func() error { return c.badParam(ctx, bp.path, bp.param, bp.mentions...) })
		}
	})
	if opts.Downstream != "" {
		t.Run("downstream", func(t *testing.T) { runDownstream(t, c) })
	}
	check(t, "metrics", func() error { return c.metrics(ctx) })
}

// runDownstream checks /api/fanout and /api/downstream, once the
// downstream itself has answered.
func runDownstream(t *testing.T, c *checker) {
	t.Helper()
	ctx := t.Context()
	if err := c.downstreamUp(ctx); err != nil {
		t.Fatal(err)
	}
	for _, mode := range fanoutModes {
		check(t, "fanout "+mode, func() error { return c.fanoutSpread(ctx, mode) })
	}
	check(t, "fanout defaults", func() error { return c.fanoutDefaults(ctx) })
	check(t, "fanout read timeouts", func() error { return c.fanoutReadTimeouts(ctx) })
	check(t, "downstream", func() error { return c.downstreamCalls(ctx) })
	check(t, "downstream timeout", func() error { return c.downstreamTimeout(ctx) })
}

// check runs fn as a subtest of t, failing it with fn's error.
func check(t *testing.T, name string, fn func() error) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		t.Helper()
		if err := fn(); err != nil {
			t.Error(err)
		}
	})
}

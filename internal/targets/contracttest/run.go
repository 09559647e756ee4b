package contracttest

import (
	"fmt"
	"testing"
	"time"
)

// The contract's parameter ranges and defaults.
const (
	durationMax     = 60000
	workMax         = 100000
	durationDefault = 100
)

// heavySlack is how much longer than asked heavy?duration=200 may take.
const heavySlack = 250 * time.Millisecond

// badParams are the requests that break a parameter's range, per endpoint.
var badParams = []struct {
	endpoints []string
	query     string
	param     string
	max       int
}{
	// Below the range.
	{[]string{"heavy", "native", "synchronized"}, "duration=-1", "duration", durationMax},
	// Above the range.
	{[]string{"heavy", "native", "synchronized"}, "duration=60001", "duration", durationMax},
	// Not a number.
	{[]string{"heavy", "native", "synchronized"}, "duration=abc", "duration", durationMax},
	// Above the range.
	{[]string{"cpu"}, "work=100001", "work", workMax},
	// Not a number.
	{[]string{"cpu"}, "work=x", "work", workMax},
}

// Run checks every endpoint of the contract against the server at baseURL,
// one subtest each, the metrics last so that they have requests to count.
func Run(t *testing.T, baseURL string, opts Options) {
	t.Helper()
	c := newChecker(baseURL, opts)
	ctx := t.Context()
	check(t, "health", func() error { return c.health(ctx) })
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
	t.Run("bad parameters", func(t *testing.T) {
		for _, tt := range badParams {
			for _, endpoint := range tt.endpoints {
				path := fmt.Sprintf("/api/%s?%s", endpoint, tt.query)
				check(t, endpoint+"?"+tt.query, func() error { return c.badParam(ctx, path, tt.param, tt.max) })
			}
		}
	})
	check(t, "metrics", func() error { return c.metrics(ctx) })
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

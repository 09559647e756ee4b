package contracttest

import (
	"context"
	"fmt"
	"strconv"

	"github.com/threadbench/threadbench/internal/bench"
)

// Check is the quick contract check the runner makes before an attack:
// /health answers UP, /info describes the expected target and thread model,
// /api/light answers with the expected target (and virtual field), and a
// bad parameter gets the contract's 400. It returns the first violation
// found, or nil.
func Check(ctx context.Context, baseURL string, opts Options) error {
	if err := checkThreadModel(opts.ThreadModel); err != nil {
		return fmt.Errorf("contract check: %w", err)
	}
	c := newChecker(baseURL, opts)
	for _, step := range []func(context.Context) error{
		c.health,
		c.info,
		func(ctx context.Context) error {
			_, _, err := c.work(ctx, "/api/light", "light", 0)
			return err
		},
		func(ctx context.Context) error {
			return c.badParam(ctx, "/api/heavy?duration=-1", "duration", "0", strconv.Itoa(bench.MaxDurationParam))
		},
	} {
		if err := step(ctx); err != nil {
			return fmt.Errorf("contract check: %w", err)
		}
	}
	return nil
}

package contracttest

import (
	"context"
	"fmt"
)

// Check is the quick contract check the runner makes before an attack:
// /health answers UP, /api/light answers with the expected target (and
// virtual field), and a bad parameter gets the contract's 400. It returns
// the first violation found, or nil.
func Check(ctx context.Context, baseURL string, opts Options) error {
	c := newChecker(baseURL, opts)
	if err := c.health(ctx); err != nil {
		return fmt.Errorf("contract check: %w", err)
	}
	if _, _, err := c.work(ctx, "/api/light", "light", 0); err != nil {
		return fmt.Errorf("contract check: %w", err)
	}
	if err := c.badParam(ctx, "/api/heavy?duration=-1", "duration", durationMax); err != nil {
		return fmt.Errorf("contract check: %w", err)
	}
	return nil
}

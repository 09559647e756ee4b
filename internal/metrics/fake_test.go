package metrics_test

import (
	"context"
	"io"
	"strings"
	"sync"

	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/metrics"
)

// StatsSource is a hand-written fake of metrics.StatsSource.
type StatsSource struct {
	ContainerStatsFn func(ctx context.Context, id string, opts client.ContainerStatsOptions) (client.ContainerStatsResult, error)
}

var _ metrics.StatsSource = (*StatsSource)(nil)

// ContainerStats calls ContainerStatsFn.
func (s *StatsSource) ContainerStats(ctx context.Context, id string, opts client.ContainerStatsOptions) (client.ContainerStatsResult, error) {
	return s.ContainerStatsFn(ctx, id, opts)
}

// servePayloads returns a fake that answers with the payloads in turn, then
// blocks until the sample is abandoned, and a count of the calls. A
// recording files a sample before it asks for the next, so once the fake has
// been called n+1 times, n samples are filed.
func servePayloads(payloads ...string) (*StatsSource, func() int) {
	var mu sync.Mutex
	calls := 0
	fake := &StatsSource{ContainerStatsFn: func(ctx context.Context, _ string, _ client.ContainerStatsOptions) (client.ContainerStatsResult, error) {
		mu.Lock()
		i := calls
		calls++
		mu.Unlock()
		if i < len(payloads) {
			return body(payloads[i]), nil
		}
		<-ctx.Done()
		return client.ContainerStatsResult{}, ctx.Err()
	}}
	return fake, func() int { mu.Lock(); defer mu.Unlock(); return calls }
}

// body wraps a JSON payload as the engine's stats response.
func body(payload string) client.ContainerStatsResult {
	return client.ContainerStatsResult{Body: io.NopCloser(strings.NewReader(payload))}
}

// *client.Client is what the runtime passes.
var _ metrics.StatsSource = (*client.Client)(nil)

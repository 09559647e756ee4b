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

// *client.Client is what the runtime passes.
var _ metrics.StatsSource = (*client.Client)(nil)

// ContainerStats calls ContainerStatsFn.
func (s *StatsSource) ContainerStats(ctx context.Context, id string, opts client.ContainerStatsOptions) (client.ContainerStatsResult, error) {
	return s.ContainerStatsFn(ctx, id, opts)
}

// stream is a fake engine streaming stats frames. Once the recording asks
// for more than the frames, every frame has been filed (a frame is filed
// before the next one is read), and drained is closed; the stream then
// stays open until the recording stops.
type stream struct {
	mu      sync.Mutex
	calls   []call
	drained chan struct{}
	once    sync.Once
	frames  string
}

// call is one ContainerStats call.
type call struct {
	id   string
	opts client.ContainerStatsOptions
}

func newStream(frames ...string) *stream {
	return &stream{drained: make(chan struct{}), frames: strings.Join(frames, "\n")}
}

// source returns the fake engine; only its first call streams the frames,
// later ones fail with err.
func (s *stream) source(err error) *StatsSource {
	return &StatsSource{ContainerStatsFn: func(ctx context.Context, id string, opts client.ContainerStatsOptions) (client.ContainerStatsResult, error) {
		s.mu.Lock()
		s.calls = append(s.calls, call{id, opts})
		n := len(s.calls)
		s.mu.Unlock()
		if n > 1 {
			return client.ContainerStatsResult{}, err
		}
		body := io.MultiReader(strings.NewReader(s.frames), &blockingReader{ctx: ctx, drained: func() { s.once.Do(func() { close(s.drained) }) }})
		return client.ContainerStatsResult{Body: io.NopCloser(body)}, nil
	}}
}

// blockingReader reports that it was reached, then blocks until ctx ends.
type blockingReader struct {
	ctx     context.Context
	drained func()
}

func (b *blockingReader) Read([]byte) (int, error) {
	b.drained()
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

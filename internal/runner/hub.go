package runner

import (
	"sync"

	"github.com/threadbench/threadbench/internal/bench"
)

// subscriberBuffer is how many events a slow subscriber may lag behind before
// per-second events are dropped for it. The attack never waits for a reader.
const subscriberBuffer = 256

// Hub fans a run's progress events out to its subscribers. Publishing never
// blocks: a subscriber that falls behind loses per-second events, never
// stage, target or run events (those are few and are sent even if that means
// dropping an older queued event is impossible, in which case the
// subscriber's channel is closed so it can re-sync from the store).
type Hub struct {
	mu   sync.Mutex
	subs map[string]map[*subscription]struct{}
}

type subscription struct {
	ch     chan bench.Event
	closed bool
}

// NewHub returns an empty hub.
func NewHub() *Hub {
	return &Hub{subs: make(map[string]map[*subscription]struct{})}
}

// Subscribe returns a channel of the run's events and a function that ends
// the subscription. The channel is closed when the run finishes (Finish) or
// the subscription ends.
func (h *Hub) Subscribe(runID string) (<-chan bench.Event, func()) {
	s := &subscription{ch: make(chan bench.Event, subscriberBuffer)}
	h.mu.Lock()
	if h.subs[runID] == nil {
		h.subs[runID] = make(map[*subscription]struct{})
	}
	h.subs[runID][s] = struct{}{}
	h.mu.Unlock()
	return s.ch, func() { h.remove(runID, s) }
}

// Publish sends ev to every subscriber of ev.RunID without blocking.
func (h *Hub) Publish(ev bench.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[ev.RunID] {
		select {
		case s.ch <- ev:
		default:
			if ev.Type != bench.EventSecond {
				// A lagging reader would miss a state change: cut it off so it
				// notices and re-reads the run, rather than show a wrong state.
				h.closeLocked(ev.RunID, s)
			}
		}
	}
}

// Finish closes every subscription of the run.
func (h *Hub) Finish(runID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[runID] {
		h.closeLocked(runID, s)
	}
	delete(h.subs, runID)
}

func (h *Hub) remove(runID string, s *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closeLocked(runID, s)
}

func (h *Hub) closeLocked(runID string, s *subscription) {
	if !s.closed {
		s.closed = true
		close(s.ch)
	}
	delete(h.subs[runID], s)
	if len(h.subs[runID]) == 0 {
		delete(h.subs, runID)
	}
}

package load

import (
	"strings"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/threadbench/threadbench/internal/bench"
)

// Mix picks a workload's requests in proportion to their weights,
// deterministically: smooth weighted round-robin (as nginx balances
// upstreams), so that any window of sum(weights) picks holds each request
// exactly weight times, spread out rather than in runs. It is not safe for
// concurrent use.
type Mix struct {
	weights []int
	current []int
	total   int
}

// NewMix returns a Mix over the workload's requests. Weights below 1 count
// as 1 (ApplyDefaults turns a missing weight into 1; validation refuses
// negative ones).
func NewMix(w bench.Workload) *Mix {
	m := &Mix{weights: make([]int, len(w.Requests)), current: make([]int, len(w.Requests))}
	for i, r := range w.Requests {
		m.weights[i] = max(r.Weight, 1)
		m.total += m.weights[i]
	}
	return m
}

// Next returns the index of the next request to send.
func (m *Mix) Next() int {
	best := 0
	for i, w := range m.weights {
		m.current[i] += w
		if m.current[i] > m.current[best] {
			best = i
		}
	}
	m.current[best] -= m.total
	return best
}

// targeter hands vegeta the workload's requests in Mix order and counts,
// per bucket of the attack clock, how many went out: the collector uses the
// counts to know when a bucket's requests have all come back.
type targeter struct {
	mu     sync.Mutex
	mix    *Mix
	urls   []string
	t0     time.Time
	bucket time.Duration
	sent   []int64 // index 0: before t0 (warm-up); i+1: bucket i
}

func newTargeter(baseURL string, w bench.Workload, t0 time.Time, bucket time.Duration) *targeter {
	base := strings.TrimSuffix(baseURL, "/")
	t := &targeter{mix: NewMix(w), urls: make([]string, len(w.Requests)), t0: t0, bucket: bucket}
	for i, r := range w.Requests {
		t.urls[i] = base + r.Path()
	}
	return t
}

// target is the vegeta.Targeter.
func (t *targeter) target(tgt *vegeta.Target) error {
	if tgt == nil {
		return vegeta.ErrNilTarget
	}
	slot := t.slot(time.Now())
	t.mu.Lock()
	i := t.mix.Next()
	for len(t.sent) <= slot {
		t.sent = append(t.sent, 0)
	}
	t.sent[slot]++
	t.mu.Unlock()
	tgt.Method, tgt.URL = "GET", t.urls[i]
	return nil
}

// slot returns the counting slot of a send time: 0 before t0, else the
// bucket's index plus one.
func (t *targeter) slot(at time.Time) int {
	off := at.Sub(t.t0)
	if off < 0 {
		return 0
	}
	return int(off/t.bucket) + 1
}

// sentIn returns the requests sent in a slot.
func (t *targeter) sentIn(slot int) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if slot < len(t.sent) {
		return t.sent[slot]
	}
	return 0
}

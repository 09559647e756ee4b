package load

import (
	"slices"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/threadbench/threadbench/internal/bench"
)

// requestSet is a workload's requests, prepared once per attack: their
// URLs and names, and the order the mix sends them in, or the steps of the
// iteration each client repeats.
type requestSet struct {
	reqs   []bench.Request
	urls   []string
	names  []string
	order  []int  // one cycle of the mix: each request index weight times
	steps  []step // the iteration; nil for a mix
	fanout []bool // which requests' responses account for their calls (/api/fanout)
	// share numbers the requests across the generators a plan is split
	// among, so that their mixes interleave into the plan's.
	share bench.Share
}

// step is an iteration's step: a request (by index) or a think time.
type step struct {
	request  int // -1 for a sleep
	min, max time.Duration
}

func newRequestSet(baseURL string, w bench.Workload) *requestSet {
	reqs := w.Requests
	if len(w.Iteration) > 0 {
		reqs = w.IterationRequests()
	}
	base := strings.TrimSuffix(baseURL, "/")
	s := &requestSet{reqs: reqs, urls: make([]string, len(reqs)), names: make([]string, len(reqs)), fanout: make([]bool, len(reqs))}
	for i, r := range reqs {
		s.urls[i], s.names[i], s.fanout[i] = base+r.Path(), r.Label(), r.Endpoint == "fanout"
	}
	for _, st := range w.Iteration {
		if st.Sleep != nil {
			s.steps = append(s.steps, step{request: -1, min: st.Sleep.Min.D(), max: max(st.Sleep.Max.D(), st.Sleep.Min.D())})
		} else {
			s.steps = append(s.steps, step{request: slices.Index(s.names, st.Request.Label())})
		}
	}
	mix := NewMix(bench.Workload{Requests: reqs})
	for range mix.total {
		s.order = append(s.order, mix.Next())
	}
	return s
}

// pick returns the request sent as the n-th of the attack (from 0): the mix
// is a fixed cycle, so any sum(weights) consecutive requests hold each
// request exactly weight times, whichever worker sends them. A share's n-th
// request is the plan's Share.Global(n)-th.
func (s *requestSet) pick(n uint64) int { return s.order[s.share.Global(n)%uint64(len(s.order))] }

// method returns the HTTP method of request kind.
func (s *requestSet) method(kind int) string { return s.reqs[kind].HTTPMethod() }

// bytesOut returns the size of request kind's body.
func (s *requestSet) bytesOut(kind int) int64 { return int64(len(s.reqs[kind].Body)) }

// kinds returns how many distinct requests there are.
func (s *requestSet) kinds() int { return len(s.urls) }

// newRequests returns one reusable request per workload request, for one
// worker, so that the hot path allocates no request of its own.
func (s *requestSet) newRequests() []*fasthttp.Request {
	reqs := make([]*fasthttp.Request, len(s.urls))
	for i, u := range s.urls {
		req := &fasthttp.Request{}
		req.SetRequestURI(u)
		req.Header.SetMethod(s.method(i))
		req.Header.SetUserAgent("threadbench")
		for k, vs := range s.reqs[i].Header {
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
		if body := s.reqs[i].Body; body != "" {
			req.SetBodyString(body)
		}
		reqs[i] = req
	}
	return reqs
}

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

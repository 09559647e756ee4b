package load

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
)

// fanouts sums a window's fan-out responses: their counts, and their
// calls' histograms decoded once each and merged as they come.
type fanouts struct {
	stats      bench.FanoutStats
	call, done *hdrhistogram.Histogram
	lost       bool // a response without a readable histogram: no per-call figure
}

// add counts one fan-out response.
func (f *fanouts) add(r bench.FanoutResponse) {
	f.stats.Add(r)
	if f.lost {
		return
	}
	call, err := hdr.Decode(r.CallHistogram)
	if err != nil {
		f.lost = true
		return
	}
	done, err := hdr.Decode(r.DoneHistogram)
	if err != nil {
		f.lost = true
		return
	}
	if f.call == nil {
		f.call, f.done = hdr.New(), hdr.New()
	}
	if f.call.Merge(call) > 0 || f.done.Merge(done) > 0 {
		f.lost = true
	}
}

// result is the window's fan-out figures, with the histograms encoded.
func (f *fanouts) result() *bench.FanoutStats {
	st := f.stats
	if f.lost || f.call == nil {
		return &st
	}
	call, err := hdr.Encode(f.call)
	if err != nil {
		return &st
	}
	done, err := hdr.Encode(f.done)
	if err != nil {
		return &st
	}
	c, d := hdr.Summarize(f.call), hdr.Summarize(f.done)
	st.CallHistogram, st.DoneHistogram, st.Call, st.Done = call, done, &c, &d
	return &st
}

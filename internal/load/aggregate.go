package load

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
)

// DefaultMaxErrors is how many distinct error messages an Aggregate keeps
// before counting the rest as OtherErrors: transport errors quote addresses,
// so a mix of many could otherwise grow without bound.
const DefaultMaxErrors = 50

// OtherErrors is the message under which errors beyond the cap are counted.
const OtherErrors = "other errors"

// DroppedError is the error of a request the open model never sent: it was
// already later than its timeout when a connection came free. Like k6's
// dropped iterations, it counts as sent and failed, so that the schedule is
// kept (no coordinated omission) and a stall shows.
const DroppedError = "dropped: already later than the request timeout when a connection came free"

// outcome is one request as the attack saw it, on the attack's clock (from
// the attack's start). In the closed model intended equals sent.
type outcome struct {
	kind     int           // index of the request in the workload
	intended time.Duration // when the schedule said it should leave
	sent     time.Duration // when it left
	connWait time.Duration // open model: of sent-intended, what it waited for a worker or a connection
	split    bool          // connWait was measured: the rest of the send lag is the generator's own
	done     time.Duration // when its response was read, or it failed
	code     int           // HTTP status; 0 when there was no response
	err      string
	dropped  bool
	waited   bool                  // open model: no connection was free at its time
	conns    int                   // open model: the connection limit when it was sent
	fanout   *bench.FanoutResponse // a fan-out's account of its calls
	atSend   bool                  // latency runs from the actual send (vegeta's stamp), not the schedule
	bytesIn  int64                 // the response body
}

// success: a response whose status the request expects (checkStatus
// leaves err empty for it).
func (o outcome) success() bool { return o.code > 0 && o.err == "" }

// latency is from the intended send time: a request that waited for a
// free connection waited as a user would have.
func (o outcome) latency() time.Duration {
	if o.atSend {
		return o.done - o.sent
	}
	return o.done - o.intended
}

// serviceTime is from the actual send.
func (o outcome) serviceTime() time.Duration { return o.done - o.sent }

// Aggregate summarises requests as they come back, in bounded memory: counts,
// status codes, the most frequent error messages and HDR histograms of
// latencies, never the requests themselves. It is not safe for concurrent use.
type Aggregate struct {
	requests    int64
	successes   int64
	dropped     int64
	codes       map[int]int64
	errors      map[string]int64
	otherErrors int64
	maxErrors   int
	hist        *hdrhistogram.Histogram
	service     *hdrhistogram.Histogram // nil: latency is service time (closed model)
	fanout      *fanouts                // nil until a fan-out response is added
}

// NewAggregate returns an empty Aggregate that keeps at most maxErrors
// distinct error messages (DefaultMaxErrors when maxErrors <= 0); with
// serviceTime it keeps a second histogram, of the time from the actual send.
func NewAggregate(maxErrors int, serviceTime bool) *Aggregate {
	if maxErrors <= 0 {
		maxErrors = DefaultMaxErrors
	}
	a := &Aggregate{codes: map[int]int64{}, errors: map[string]int64{}, maxErrors: maxErrors, hist: hdr.New()}
	if serviceTime {
		a.service = hdr.New()
	}
	return a
}

// add counts one request.
func (a *Aggregate) add(o outcome) {
	a.requests++
	if o.success() {
		a.successes++
	}
	if o.dropped {
		a.dropped++
	}
	a.codes[o.code]++
	if o.err != "" {
		a.addError(o.err)
	}
	if o.fanout != nil {
		if a.fanout == nil {
			a.fanout = &fanouts{}
		}
		a.fanout.add(*o.fanout)
	}
	if o.code != 0 {
		// Only requests the target answered have a latency worth the name: a
		// refused connection or a dropped request "answers" in microseconds
		// and would make a failing target look fast.
		hdr.Record(a.hist, o.latency())
		if a.service != nil {
			hdr.Record(a.service, o.serviceTime())
		}
	}
}

func (a *Aggregate) addError(msg string) {
	if _, ok := a.errors[msg]; ok || len(a.errors) < a.maxErrors {
		a.errors[msg]++
		return
	}
	a.otherErrors++
}

// Requests returns how many requests were added.
func (a *Aggregate) Requests() int64 { return a.requests }

// stats summarises the requests, with completed successful responses over
// elapsed as the throughput and the bytes on the wire given.
func (a *Aggregate) stats(elapsed time.Duration, completed, bytesIn, bytesOut int64) bench.Stats {
	st := bench.Stats{
		Requests:  a.requests,
		Successes: a.successes,
		Completed: completed,
		Dropped:   a.dropped,
		Elapsed:   bench.Duration(elapsed),
		BytesIn:   bytesIn,
		BytesOut:  bytesOut,
		Latency:   hdr.Summarize(a.hist),
		Errors:    a.topErrors(),
	}
	if a.service != nil && a.service.TotalCount() > 0 {
		service := hdr.Summarize(a.service)
		st.ServiceTime = &service
	}
	if a.fanout != nil {
		st.Fanout = a.fanout.result()
	}
	if len(a.codes) > 0 {
		st.StatusCodes = make(map[string]int64, len(a.codes))
		for code, n := range a.codes {
			st.StatusCodes[strconv.Itoa(code)] = n
		}
	}
	st.SetRates()
	return st
}

// withHistograms adds the encoded histograms to stats.
func (a *Aggregate) withHistograms(st bench.Stats) bench.Stats {
	st.Histogram, _ = hdr.Encode(a.hist) // encoding into memory does not fail
	if a.service != nil && a.service.TotalCount() > 0 {
		st.ServiceHistogram, _ = hdr.Encode(a.service)
	}
	return st
}

// reset empties the Aggregate for reuse, keeping its memory.
func (a *Aggregate) reset() {
	a.requests, a.successes, a.dropped, a.otherErrors, a.fanout = 0, 0, 0, 0, nil
	clear(a.codes)
	clear(a.errors)
	a.hist.Reset()
	if a.service != nil {
		a.service.Reset()
	}
}

// topErrors returns the kept messages, most frequent first, then the
// OtherErrors count.
func (a *Aggregate) topErrors() []bench.ErrorCount {
	if len(a.errors) == 0 {
		return nil
	}
	out := make([]bench.ErrorCount, 0, len(a.errors)+1)
	for msg, n := range a.errors {
		out = append(out, bench.ErrorCount{Message: msg, Count: n})
	}
	slices.SortFunc(out, func(x, y bench.ErrorCount) int {
		if c := cmp.Compare(y.Count, x.Count); c != 0 {
			return c
		}
		return cmp.Compare(x.Message, y.Message)
	})
	if a.otherErrors > 0 {
		out = append(out, bench.ErrorCount{Message: OtherErrors, Count: a.otherErrors})
	}
	return out
}

// patchStats adds a request to an already summarised Stats: counts, codes
// and errors, not the latency, which needs the histogram. It is for the
// rare request that comes back after its second was reported.
func patchStats(st *bench.Stats, o outcome) {
	st.Requests++
	if o.success() {
		st.Successes++
	}
	if o.dropped {
		st.Dropped++
	}
	if st.StatusCodes == nil {
		st.StatusCodes = map[string]int64{}
	}
	st.StatusCodes[strconv.Itoa(o.code)]++
	if o.err != "" {
		for i := range st.Errors {
			if st.Errors[i].Message == o.err {
				st.Errors[i].Count++
				st.SetRates()
				return
			}
		}
		st.Errors = append(st.Errors, bench.ErrorCount{Message: o.err, Count: 1})
	}
	st.SetRates()
}

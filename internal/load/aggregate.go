package load

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
)

// DefaultMaxErrors is how many distinct error messages an Aggregate keeps
// before counting the rest as OtherErrors: transport errors quote the URL,
// so a mix of many paths could otherwise grow without bound.
const DefaultMaxErrors = 50

// OtherErrors is the message under which errors beyond the cap are counted.
const OtherErrors = "other errors"

// bytesInHeader carries a response's body size from the counting transport
// to the Aggregate through the response headers vegeta keeps (vegeta itself
// is told not to keep bodies, so its BytesIn would be 0).
const bytesInHeader = "X-Threadbench-Bytes-In"

// Aggregate summarises requests as they come back, in bounded memory: counts,
// status codes, the most frequent error messages and an HDR histogram of
// latencies, never the requests themselves. It is not safe for concurrent use.
type Aggregate struct {
	requests    int64
	successes   int64
	bytesIn     int64
	bytesOut    int64
	codes       map[uint16]int64
	errors      map[string]int64
	otherErrors int64
	maxErrors   int
	hist        *hdrhistogram.Histogram
}

// NewAggregate returns an empty Aggregate that keeps at most maxErrors
// distinct error messages (DefaultMaxErrors when maxErrors <= 0).
func NewAggregate(maxErrors int) *Aggregate {
	if maxErrors <= 0 {
		maxErrors = DefaultMaxErrors
	}
	return &Aggregate{codes: map[uint16]int64{}, errors: map[string]int64{}, maxErrors: maxErrors, hist: hdr.New()}
}

// Add counts one result.
func (a *Aggregate) Add(r *vegeta.Result) {
	a.requests++
	if success(r) {
		a.successes++
	}
	a.codes[r.Code]++
	if r.Error != "" {
		a.addError(r.Error)
	}
	a.bytesIn += bytesIn(r)
	a.bytesOut += int64(r.BytesOut)
	if r.Code != 0 {
		// Only requests the target answered have a latency worth the name: a
		// refused connection or a dropped request "answers" in microseconds
		// and would make a failing target look fast.
		hdr.Record(a.hist, r.Latency)
	}
}

func success(r *vegeta.Result) bool { return r.Code >= 200 && r.Code < 300 }

func (a *Aggregate) addError(msg string) {
	if _, ok := a.errors[msg]; ok || len(a.errors) < a.maxErrors {
		a.errors[msg]++
		return
	}
	a.otherErrors++
}

// bytesIn returns the response body's size: the counting transport's
// figure when present, else vegeta's.
func bytesIn(r *vegeta.Result) int64 {
	if v := r.Headers[bytesInHeader]; len(v) == 1 {
		if n, err := strconv.ParseInt(v[0], 10, 64); err == nil {
			return n
		}
	}
	return int64(r.BytesIn)
}

// Requests returns how many results were added.
func (a *Aggregate) Requests() int64 { return a.requests }

// Stats summarises the results as sent over elapsed: rates are per second
// of elapsed. The histogram is left out; see EncodedHistogram.
func (a *Aggregate) Stats(elapsed time.Duration) bench.Stats {
	st := bench.Stats{
		Requests:  a.requests,
		Successes: a.successes,
		Elapsed:   bench.Duration(elapsed),
		BytesIn:   a.bytesIn,
		BytesOut:  a.bytesOut,
		Latency:   hdr.Summarize(a.hist),
		Errors:    a.topErrors(),
	}
	if len(a.codes) > 0 {
		st.StatusCodes = make(map[string]int64, len(a.codes))
		for code, n := range a.codes {
			st.StatusCodes[strconv.Itoa(int(code))] = n
		}
	}
	setRates(&st)
	return st
}

// EncodedHistogram returns the latency histogram in hdr's encoding.
func (a *Aggregate) EncodedHistogram() (string, error) { return hdr.Encode(a.hist) }

// Reset empties the Aggregate for reuse, keeping its memory.
func (a *Aggregate) Reset() {
	a.requests, a.successes, a.bytesIn, a.bytesOut, a.otherErrors = 0, 0, 0, 0, 0
	clear(a.codes)
	clear(a.errors)
	a.hist.Reset()
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
	sortErrors(out)
	if a.otherErrors > 0 {
		out = append(out, bench.ErrorCount{Message: OtherErrors, Count: a.otherErrors})
	}
	return out
}

func sortErrors(errs []bench.ErrorCount) {
	slices.SortFunc(errs, func(x, y bench.ErrorCount) int {
		if c := cmp.Compare(y.Count, x.Count); c != 0 {
			return c
		}
		return cmp.Compare(x.Message, y.Message)
	})
}

func setRates(st *bench.Stats) {
	st.OfferedRate, st.Throughput = 0, 0
	if secs := st.Elapsed.D().Seconds(); secs > 0 {
		st.OfferedRate = float64(st.Requests) / secs
		st.Throughput = float64(st.Successes) / secs
	}
}

// patchStats adds a result to an already summarised Stats: counts, codes,
// errors and rates, not the latency, which needs the histogram. It is for
// the rare result that comes back after its second was reported.
func patchStats(st *bench.Stats, r *vegeta.Result) {
	st.Requests++
	if success(r) {
		st.Successes++
	}
	if st.StatusCodes == nil {
		st.StatusCodes = map[string]int64{}
	}
	st.StatusCodes[strconv.Itoa(int(r.Code))]++
	st.BytesIn += bytesIn(r)
	st.BytesOut += int64(r.BytesOut)
	if r.Error != "" {
		patchError(st, r.Error)
	}
	setRates(st)
}

func patchError(st *bench.Stats, msg string) {
	for i := range st.Errors {
		if st.Errors[i].Message == msg {
			st.Errors[i].Count++
			return
		}
	}
	st.Errors = append(st.Errors, bench.ErrorCount{Message: msg, Count: 1})
}

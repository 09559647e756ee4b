package bench

// FanoutStats sums what GET /api/fanout answered (targets/CONTRACT.md):
// each response says how its calls to the downstream service went.
type FanoutStats struct {
	Responses      int64          `json:"responses"` // fan-out responses read
	Calls          int64          `json:"calls"`
	Succeeded      int64          `json:"succeeded"`
	Failed         int64          `json:"failed"`
	Failures       FanoutFailures `json:"failures"`
	ElapsedMs      float64        `json:"elapsedMs"`      // the longest fan-out
	PeakConcurrent int64          `json:"peakConcurrent"` // the most calls in flight in one fan-out
	// Each call's time, its own (from just before it goes out, its pool
	// thread or permit in hand, to its answer or failure) and from its
	// fan-out's start to its end (the wait for a thread or permit in it),
	// summed over the fan-outs; nil where the target sent no histogram.
	Call *Latency `json:"call,omitempty"`
	Done *Latency `json:"done,omitempty"`
	// CallHistogram and DoneHistogram keep them to merge: HdrHistogram's
	// V2 compressed encoding, base64, microseconds.
	CallHistogram string `json:"callHistogram,omitempty"`
	DoneHistogram string `json:"doneHistogram,omitempty"`
}

// FanoutFailures are failed calls by cause.
type FanoutFailures struct {
	ReadTimeout    int64 `json:"readTimeout"`
	ConnectTimeout int64 `json:"connectTimeout"`
	Refused        int64 `json:"refused"`
	Other          int64 `json:"other"`
}

// FanoutResponse is one /api/fanout answer, as the contract writes it.
type FanoutResponse struct {
	Mode           string         `json:"mode"`
	Limit          int            `json:"limit"`
	Calls          int64          `json:"calls"`
	Succeeded      int64          `json:"succeeded"`
	Failed         int64          `json:"failed"`
	Failures       FanoutFailures `json:"failures"`
	ElapsedMs      float64        `json:"elapsedMs"`
	PeakConcurrent int64          `json:"peakConcurrent"`
	CallHistogram  string         `json:"callHistogram"`
	DoneHistogram  string         `json:"doneHistogram"`
}

// Add counts one fan-out response; its histograms are the caller's to
// merge (internal/hdr).
func (f *FanoutStats) Add(r FanoutResponse) {
	f.Merge(FanoutStats{Responses: 1, Calls: r.Calls, Succeeded: r.Succeeded, Failed: r.Failed, Failures: r.Failures,
		ElapsedMs: r.ElapsedMs, PeakConcurrent: r.PeakConcurrent})
}

// Merge adds the counts of what another window's fan-outs accounted for;
// their histograms are the caller's to merge (internal/hdr).
func (f *FanoutStats) Merge(o FanoutStats) {
	f.Responses += o.Responses
	f.Calls += o.Calls
	f.Succeeded += o.Succeeded
	f.Failed += o.Failed
	f.Failures.ReadTimeout += o.Failures.ReadTimeout
	f.Failures.ConnectTimeout += o.Failures.ConnectTimeout
	f.Failures.Refused += o.Failures.Refused
	f.Failures.Other += o.Failures.Other
	f.ElapsedMs = max(f.ElapsedMs, o.ElapsedMs)
	f.PeakConcurrent = max(f.PeakConcurrent, o.PeakConcurrent)
}

// SuccessRatio is the share of calls that succeeded, 0 without calls.
func (f FanoutStats) SuccessRatio() float64 {
	if f.Calls == 0 {
		return 0
	}
	return float64(f.Succeeded) / float64(f.Calls)
}

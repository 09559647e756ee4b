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
}

// Add counts one fan-out response.
func (f *FanoutStats) Add(r FanoutResponse) {
	f.Merge(FanoutStats{Responses: 1, Calls: r.Calls, Succeeded: r.Succeeded, Failed: r.Failed, Failures: r.Failures,
		ElapsedMs: r.ElapsedMs, PeakConcurrent: r.PeakConcurrent})
}

// Merge adds what another window's fan-outs accounted for.
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

package contracttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
)

// The fan-out every mode is checked with: 20 calls of 100 ms, at most 5 at
// a time where the mode bounds them, so bounded modes take 4 waves.
const (
	spreadCalls      = 20
	spreadLimit      = 5
	spreadDurationMs = 100
)

// failuresResponse counts a fan-out's failed calls by kind.
type failuresResponse struct {
	ReadTimeout    *int `json:"readTimeout"`
	ConnectTimeout *int `json:"connectTimeout"`
	Refused        *int `json:"refused"`
	Other          *int `json:"other"`
}

// fanoutResponse is the contract's GET /api/fanout. Pointers tell absent
// fields from zero ones.
type fanoutResponse struct {
	Target         *string           `json:"target"`
	Endpoint       *string           `json:"endpoint"`
	Mode           *string           `json:"mode"`
	Limit          *int              `json:"limit"`
	Calls          *int              `json:"calls"`
	Succeeded      *int              `json:"succeeded"`
	Failed         *int              `json:"failed"`
	Failures       *failuresResponse `json:"failures"`
	ElapsedMs      *int64            `json:"elapsedMs"`
	PeakConcurrent *int              `json:"peakConcurrent"`
	CallHistogram  *string           `json:"callHistogram"`
	DoneHistogram  *string           `json:"doneHistogram"`
	Thread         *string           `json:"thread"`
	Virtual        *bool             `json:"virtual"`
}

// absent names the first field the response lacks, or returns "".
func (r *fanoutResponse) absent() string {
	f := r.Failures
	if f == nil {
		f = &failuresResponse{}
	}
	for _, field := range []struct {
		name   string
		absent bool
	}{
		{"mode", r.Mode == nil}, {"limit", r.Limit == nil}, {"calls", r.Calls == nil},
		{"succeeded", r.Succeeded == nil}, {"failed", r.Failed == nil},
		{"failures.readTimeout", f.ReadTimeout == nil}, {"failures.connectTimeout", f.ConnectTimeout == nil},
		{"failures.refused", f.Refused == nil}, {"failures.other", f.Other == nil},
		{"elapsedMs", r.ElapsedMs == nil}, {"peakConcurrent", r.PeakConcurrent == nil},
		{"callHistogram", r.CallHistogram == nil}, {"doneHistogram", r.DoneHistogram == nil},
	} {
		if field.absent {
			return field.name
		}
	}
	return ""
}

// fanout requests /api/fanout?query and checks what every fan-out response
// has: all its fields, its target and thread, and counts that add up.
func (c *checker) fanout(ctx context.Context, query string) (*fanoutResponse, error) {
	path := "/api/fanout?" + query
	resp, err := c.getJSON(ctx, path, http.StatusOK)
	if err != nil {
		return nil, err
	}
	var r fanoutResponse
	if err := json.Unmarshal(resp.body, &r); err != nil {
		return nil, fmt.Errorf("GET %s: %w; body %s", path, err, snippet(resp.body))
	}
	if err := c.checkFanout(&r); err != nil {
		return nil, fmt.Errorf("GET %s: %w; body %s", path, err, snippet(resp.body))
	}
	return &r, nil
}

// checkFanout checks the fields every fan-out response has.
func (c *checker) checkFanout(r *fanoutResponse) error {
	if name := r.absent(); name != "" {
		return fmt.Errorf("%s absent", name)
	}
	f := r.Failures
	switch {
	case r.Target == nil || *r.Target != c.opts.Target:
		return fmt.Errorf("target %s, want %q", show(r.Target), c.opts.Target)
	case r.Endpoint == nil || *r.Endpoint != "fanout":
		return fmt.Errorf("endpoint %s, want \"fanout\"", show(r.Endpoint))
	case *r.Succeeded+*r.Failed != *r.Calls:
		return fmt.Errorf("succeeded %d and failed %d do not add up to calls %d", *r.Succeeded, *r.Failed, *r.Calls)
	case *f.ReadTimeout+*f.ConnectTimeout+*f.Refused+*f.Other != *r.Failed:
		return fmt.Errorf("failures do not add up to failed %d", *r.Failed)
	}
	if err := r.checkTimes(); err != nil {
		return err
	}
	return c.checkThread(r.Thread, r.Virtual)
}

// times decodes the calls' histograms: each call's own time and its time
// from the fan-out's start.
func (r *fanoutResponse) times() (call, done *hdrhistogram.Histogram, err error) {
	if call, err = hdr.Decode(*r.CallHistogram); err != nil {
		return nil, nil, fmt.Errorf("callHistogram: %w", err)
	}
	if done, err = hdr.Decode(*r.DoneHistogram); err != nil {
		return nil, nil, fmt.Errorf("doneHistogram: %w", err)
	}
	return call, done, nil
}

// checkTimes checks that both histograms hold every call, a call's own
// time within its time from the start, and the last within the fan-out's
// elapsedMs (a millisecond for its rounding down, 0.1 % for the
// histograms' precision).
func (r *fanoutResponse) checkTimes() error {
	call, done, err := r.times()
	if err != nil {
		return err
	}
	elapsedUs := float64(*r.ElapsedMs+1) * 1000 * 1.001
	switch {
	case call.TotalCount() != int64(*r.Calls) || done.TotalCount() != int64(*r.Calls):
		return fmt.Errorf("callHistogram holds %d calls, doneHistogram %d, want %d each", call.TotalCount(), done.TotalCount(), *r.Calls)
	case call.Max() > done.Max() || call.Min() > done.Min():
		return fmt.Errorf("calls took %d to %d µs, longer than from the fan-out's start to their end (%d to %d µs)",
			call.Min(), call.Max(), done.Min(), done.Max())
	case float64(done.Max()) > elapsedUs:
		return fmt.Errorf("the last call ended %d µs after the fan-out's start, after its elapsedMs %d", done.Max(), *r.ElapsedMs)
	}
	return nil
}

// canonicalMode is the mode a fan-out reports for a mode word: each
// runtime's word for unbounded is unbounded.
func canonicalMode(word string) string {
	if word == bench.ModeVirtual || word == bench.ModeGoroutines {
		return bench.ModeUnbounded
	}
	return word
}

// fanoutSpread checks one mode word: every call succeeds; bounded modes
// keep at most the limit in flight, unbounded ones more.
func (c *checker) fanoutSpread(ctx context.Context, word string) error {
	query := fmt.Sprintf("calls=%d&limit=%d&duration=%d&mode=%s", spreadCalls, spreadLimit, spreadDurationMs, word)
	r, err := c.fanout(ctx, query)
	if err != nil {
		return err
	}
	mode := canonicalMode(word)
	switch {
	case *r.Mode != mode:
		return fmt.Errorf("fanout?%s: mode %q, want %q", query, *r.Mode, mode)
	case *r.Succeeded != spreadCalls:
		return fmt.Errorf("fanout?%s: %d of %d calls succeeded, failures %s", query, *r.Succeeded, spreadCalls, failuresText(r.Failures))
	case mode == bench.ModeUnbounded && (*r.Limit != 0 || *r.PeakConcurrent <= spreadLimit):
		return fmt.Errorf("fanout?%s: limit %d, peakConcurrent %d, want 0 and above %d: unbounded ignores the limit",
			query, *r.Limit, *r.PeakConcurrent, spreadLimit)
	case mode != bench.ModeUnbounded && (*r.Limit != spreadLimit || *r.PeakConcurrent < 1 || *r.PeakConcurrent > spreadLimit):
		return fmt.Errorf("fanout?%s: limit %d, peakConcurrent %d, want %d and at most %d", query, *r.Limit, *r.PeakConcurrent, spreadLimit, spreadLimit)
	case mode != bench.ModeUnbounded && *r.ElapsedMs < spreadCalls/spreadLimit*spreadDurationMs:
		return fmt.Errorf("fanout?%s: elapsedMs %d, want at least %d for %d waves", query, *r.ElapsedMs,
			spreadCalls/spreadLimit*spreadDurationMs, spreadCalls/spreadLimit)
	}
	return r.checkWaves(query, mode)
}

// checkWaves checks the calls' histograms against the calls made: each
// slept spreadDurationMs; bounded modes ended their last wave no sooner
// than the waves' sleeps, one after another.
func (r *fanoutResponse) checkWaves(query, mode string) error {
	call, done, err := r.times()
	if err != nil {
		return err
	}
	sleptUs := float64(spreadDurationMs) * 1000 * 0.999
	waves := float64(spreadCalls/spreadLimit) * sleptUs
	switch {
	case float64(call.Min()) < sleptUs:
		return fmt.Errorf("fanout?%s: the shortest call took %d µs, want at least the %d ms it sleeps", query, call.Min(), spreadDurationMs)
	case mode != bench.ModeUnbounded && float64(done.Max()) < waves:
		return fmt.Errorf("fanout?%s: the last call ended %d µs after the start, want at least %.0f µs for %d waves", query, done.Max(), waves, spreadCalls/spreadLimit)
	}
	return nil
}

// fanoutReadTimeouts checks that calls answered after their timeout count
// as read timeouts.
func (c *checker) fanoutReadTimeouts(ctx context.Context) error {
	const query = "calls=3&duration=500&timeout=100"
	r, err := c.fanout(ctx, query)
	if err != nil {
		return err
	}
	if *r.Failures.ReadTimeout != 3 {
		return fmt.Errorf("fanout?%s: failures %s, want readTimeout 3", query, failuresText(r.Failures))
	}
	return nil
}

// fanoutDefaults checks calls, limit and mode against the table's defaults.
func (c *checker) fanoutDefaults(ctx context.Context) error {
	pool, err := c.fanout(ctx, "mode=pool&duration=0")
	if err != nil {
		return err
	}
	calls, limit := paramDefault("fanout", "calls"), paramDefault("fanout", "limit")
	if strconv.Itoa(*pool.Calls) != calls || strconv.Itoa(*pool.Limit) != limit {
		return fmt.Errorf("fanout?mode=pool: calls %d, limit %d, want the defaults %s and %s", *pool.Calls, *pool.Limit, calls, limit)
	}
	one, err := c.fanout(ctx, "calls=1&duration=0")
	if err != nil {
		return err
	}
	if mode := canonicalMode(paramDefault("fanout", "mode")); *one.Mode != mode {
		return fmt.Errorf("fanout?calls=1: mode %q, want the default %q", *one.Mode, mode)
	}
	return nil
}

// downstreamCalls checks /api/downstream's work response, with and without
// a bulkhead and with the default duration.
func (c *checker) downstreamCalls(ctx context.Context) error {
	def, err := strconv.ParseInt(paramDefault("downstream", "duration"), 10, 64)
	if err != nil {
		return fmt.Errorf("the table's downstream duration: %w", err)
	}
	for _, tt := range []struct {
		query      string
		durationMs int64
	}{{"duration=50", 50}, {"duration=50&limit=2&timeout=5000", 50}, {"", def}} {
		if _, _, err := c.work(ctx, "/api/downstream?"+tt.query, "downstream", tt.durationMs); err != nil {
			return err
		}
	}
	return nil
}

// downstreamTimeout checks the 504 of a downstream call that timed out.
func (c *checker) downstreamTimeout(ctx context.Context) error {
	const path = "/api/downstream?duration=500&timeout=100"
	resp, err := c.getJSON(ctx, path, http.StatusGatewayTimeout)
	if err != nil {
		return err
	}
	var body struct {
		Status *int   `json:"status"`
		Error  string `json:"error"`
	}
	if err := json.Unmarshal(resp.body, &body); err != nil {
		return fmt.Errorf("GET %s: %w; body %s", path, err, snippet(resp.body))
	}
	if body.Status == nil || *body.Status != http.StatusGatewayTimeout || !strings.Contains(body.Error, "read timed out") {
		return fmt.Errorf("GET %s: body %s, want status 504 and an error saying the read timed out", path, snippet(resp.body))
	}
	return nil
}

// downstreamUp checks that the downstream the target was started with
// answers its heavy endpoint, so that a failing fan-out is the target's fault.
func (c *checker) downstreamUp(ctx context.Context) error {
	d := newChecker(c.opts.Downstream, Options{Client: c.client})
	resp, err := d.get(ctx, "/api/heavy?duration=0", "application/json", maxBody)
	if err != nil {
		return fmt.Errorf("downstream %s: %w", c.opts.Downstream, err)
	}
	if resp.status != http.StatusOK {
		return fmt.Errorf("downstream %s: GET /api/heavy?duration=0: status %d, want 200", c.opts.Downstream, resp.status)
	}
	return nil
}

// failuresText formats failure counts for a message.
func failuresText(f *failuresResponse) string {
	return fmt.Sprintf("readTimeout %s, connectTimeout %s, refused %s, other %s",
		show(f.ReadTimeout), show(f.ConnectTimeout), show(f.Refused), show(f.Other))
}

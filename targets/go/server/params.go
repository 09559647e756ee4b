package server

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// param is one integer query parameter of the contract, with its default
// and its inclusive range min..max.
type param struct {
	name string
	def  int
	min  int
	max  int
}

// Limits shared by several parameters, as in internal/bench/endpoint.go.
const (
	maxDurationMs = 60000 // heavy, native, synchronized, lock, the downstream calls and db's delay
	maxCalls      = 10000 // fan-out calls per request, and bulkhead permits
)

// The contract's parameters, per endpoint where they differ.
var (
	durationParam = param{name: "duration", def: 100, max: maxDurationMs}
	workParam     = param{name: "work", def: 1000, max: 100000}
	// heavy's sleeps in a row and its log line (0 or 1), as seed 004's
	// handler sleeps 300 ms twice and logs "Done".
	timesParam = param{name: "times", def: 1, min: 1, max: 100}
	logParam   = param{name: "log", def: 0, max: 1}

	fanoutCallsParam    = param{name: "calls", def: 100, min: 1, max: maxCalls}
	fanoutLimitParam    = param{name: "limit", def: 100, min: 1, max: maxCalls}
	fanoutDurationParam = param{name: "duration", def: 3000, max: maxDurationMs}
	timeoutParam        = param{name: "timeout", def: 5000, min: 1, max: maxDurationMs}
	bulkheadLimitParam  = param{name: "limit", def: 0, max: maxCalls}

	delayParam = param{name: "delay", def: 0, max: maxDurationMs}
)

// parse returns the parameter's value in rawQuery, its default when absent,
// or an error whose message names the parameter and its range. It scans the
// raw query itself rather than building url.Values, to keep the hot path
// free of allocations.
func (p param) parse(rawQuery string) (int, error) {
	raw, count := lookup(rawQuery, p.name)
	switch {
	case count == 0:
		return p.def, nil
	case count > 1:
		return 0, p.errorf("got %d values", count)
	}
	value, err := unescape(raw)
	if err != nil {
		return 0, p.errorf("got %s", quote(raw))
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < p.min || n > p.max {
		return 0, p.errorf("got %s", quote(value))
	}
	return n, nil
}

// errorf returns the contract's error message for p: it names the
// parameter and its range, then says what was given.
func (p param) errorf(format string, args ...any) error {
	return fmt.Errorf("%s must be an integer from %d to %d, %s", p.name, p.min, p.max, fmt.Sprintf(format, args...))
}

// wordParam is a query parameter of the contract that takes one of a few
// words, with its default.
type wordParam struct {
	name   string
	def    string
	values []string
}

// parse returns the parameter's value in rawQuery, its default when absent,
// or an error whose message names the parameter and its words.
func (p wordParam) parse(rawQuery string) (string, error) {
	raw, count := lookup(rawQuery, p.name)
	switch {
	case count == 0:
		return p.def, nil
	case count > 1:
		return "", p.errorf("got %d values", count)
	}
	value, err := unescape(raw)
	if err != nil {
		return "", p.errorf("got %s", quote(raw))
	}
	if !slices.Contains(p.values, value) {
		return "", p.errorf("got %s", quote(value))
	}
	return value, nil
}

// errorf returns the contract's error message for p, worded as
// internal/bench's Param.Check words it.
func (p wordParam) errorf(format string, args ...any) error {
	return fmt.Errorf("%s must be one of %s, %s", p.name, strings.Join(p.values, ", "), fmt.Sprintf(format, args...))
}

// lookup returns the raw (still escaped) value of the last occurrence of
// name in rawQuery and how many times name occurs.
func lookup(rawQuery, name string) (raw string, count int) {
	for rawQuery != "" {
		var pair string
		pair, rawQuery, _ = strings.Cut(rawQuery, "&")
		key, value, _ := strings.Cut(pair, "=")
		if k, err := unescape(key); err == nil && k == name {
			raw, count = value, count+1
		}
	}
	return raw, count
}

// unescape decodes a query component, skipping the work when there is
// nothing to decode.
func unescape(s string) (string, error) {
	if !strings.ContainsAny(s, "%+") {
		return s, nil
	}
	return url.QueryUnescape(s)
}

// quote quotes a given value for an error message, cut short so that a
// huge query cannot make a huge response.
func quote(s string) string {
	const maxLen = 40
	if len(s) > maxLen {
		return strconv.Quote(s[:maxLen]) + "..."
	}
	return strconv.Quote(s)
}

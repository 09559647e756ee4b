package server

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// param is one integer query parameter of the contract, with its default
// and its inclusive range 0..max.
type param struct {
	name string
	def  int
	max  int
}

// The contract's parameters.
var (
	durationParam = param{name: "duration", def: 100, max: 60000}
	workParam     = param{name: "work", def: 1000, max: 100000}
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
	if err != nil || n < 0 || n > p.max {
		return 0, p.errorf("got %s", quote(value))
	}
	return n, nil
}

// errorf returns the contract's error message for p: it names the
// parameter and its range, then says what was given.
func (p param) errorf(format string, args ...any) error {
	return fmt.Errorf("%s must be an integer from 0 to %d, %s", p.name, p.max, fmt.Sprintf(format, args...))
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

package bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Objective is a service-level objective a window of an attack must meet,
// such as "p99<=250ms,errors<=0.1%": every bound must hold.
type Objective struct {
	Terms []Term
}

// Term is one term of an objective: a figure and the most it may be.
type Term struct {
	Metric Metric
	// Max is in milliseconds for a latency percentile and a ratio (0..1)
	// for errors and drops.
	Max float64
}

// Metric is a figure an objective bounds.
type Metric string

// The metrics an objective may bound. Errors are the requests that failed
// other than by being dropped; drops the requests the open model never
// sent because they were already later than the timeout. Both are shares
// of the requests scheduled.
const (
	MetricP50    Metric = "p50"
	MetricP90    Metric = "p90"
	MetricP95    Metric = "p95"
	MetricP99    Metric = "p99"
	MetricP999   Metric = "p999"
	MetricErrors Metric = "errors"
	MetricDrops  Metric = "drops"
)

// IsLatency reports whether m is a latency percentile, bounded by a
// duration rather than a share.
func (m Metric) IsLatency() bool {
	switch m {
	case MetricP50, MetricP90, MetricP95, MetricP99, MetricP999:
		return true
	}
	return false
}

func (m Metric) known() bool { return m.IsLatency() || m == MetricErrors || m == MetricDrops }

// ParseObjective reads an objective written as comma-separated terms
// "metric<=value": latency percentiles (p50, p90, p95, p99, p999) bounded by
// a duration ("250ms", "1.5s"), errors and drops by a percentage ("0.1%")
// or a ratio ("0.001"). "<" is read as "<=". An error names the term at
// fault; its Field is "objective", for the caller to rename.
func ParseObjective(s string) (Objective, error) {
	var o Objective
	seen := map[Metric]bool{}
	for _, term := range strings.Split(s, ",") {
		term = strings.TrimSpace(term)
		if term == "" {
			if strings.TrimSpace(s) == "" {
				return Objective{}, FieldErrorf("objective", "empty: write bounds such as p99<=250ms,errors<=0.1%%")
			}
			return Objective{}, FieldErrorf("objective", "empty term in %q", s)
		}
		b, err := parseTerm(term)
		if err != nil {
			return Objective{}, err
		}
		if seen[b.Metric] {
			return Objective{}, FieldErrorf("objective", "%q: %s is limited twice", term, b.Metric)
		}
		seen[b.Metric] = true
		o.Terms = append(o.Terms, b)
	}
	return o, nil
}

func parseTerm(term string) (Term, error) {
	name, value, ok := strings.Cut(term, "<")
	if !ok {
		return Term{}, FieldErrorf("objective", "%q: want metric<=value, e.g. p99<=250ms", term)
	}
	value = strings.TrimSpace(strings.TrimPrefix(value, "="))
	m := Metric(strings.ToLower(strings.TrimSpace(name)))
	if !m.known() {
		return Term{}, FieldErrorf("objective", "%q: unknown metric %q (want p50, p90, p95, p99, p999, errors or drops)", term, name)
	}
	if m.IsLatency() {
		d, err := time.ParseDuration(value)
		if err != nil || d <= 0 {
			return Term{}, FieldErrorf("objective", "%q: %s needs a positive duration such as 250ms, not %q", term, m, value)
		}
		return Term{Metric: m, Max: float64(d) / float64(time.Millisecond)}, nil
	}
	ratio, err := parseShare(value)
	if err != nil {
		return Term{}, FieldErrorf("objective", "%q: %s %v", term, m, err)
	}
	return Term{Metric: m, Max: ratio}, nil
}

// parseShare reads "0.1%" as 0.001 and a bare number as a ratio.
func parseShare(value string) (float64, error) {
	num, percent := strings.CutSuffix(value, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	switch {
	case err != nil || v != v:
		return 0, fmt.Errorf("needs a share such as 0.1%% or 0.001, not %q", value)
	case percent:
		v /= 100
	case v > 1:
		return 0, fmt.Errorf("ratio %q is above 1 (write %s%% for a percentage)", value, num)
	}
	if v < 0 || v > 1 {
		return 0, fmt.Errorf("needs a share between 0%% and 100%%, not %q", value)
	}
	return v, nil
}

// String writes the objective back in the form ParseObjective reads.
func (o Objective) String() string {
	terms := make([]string, len(o.Terms))
	for i, b := range o.Terms {
		terms[i] = b.String()
	}
	return strings.Join(terms, ",")
}

// String writes the bound as "p99<=250ms" or "errors<=0.1%".
func (b Term) String() string {
	return string(b.Metric) + "<=" + b.format(b.Max)
}

// format writes a value of the bound's metric: a duration or a percentage.
func (b Term) format(v float64) string {
	if b.Metric.IsLatency() {
		// to 0.1 ms from a millisecond up: "338.7ms", not "338.687ms"
		precision := time.Microsecond
		if v >= 1 {
			precision = 100 * time.Microsecond
		}
		return time.Duration(v * float64(time.Millisecond)).Round(precision).String()
	}
	return strconv.FormatFloat(v*100, 'g', 4, 64) + "%"
}

// Value returns the figure of s the bound is about.
func (b Term) Value(s Stats) float64 {
	switch b.Metric {
	case MetricP50:
		return s.Latency.P50
	case MetricP90:
		return s.Latency.P90
	case MetricP95:
		return s.Latency.P95
	case MetricP99:
		return s.Latency.P99
	case MetricP999:
		return s.Latency.P999
	}
	if s.Requests == 0 {
		return 0
	}
	if b.Metric == MetricDrops {
		return float64(s.Dropped) / float64(s.Requests)
	}
	return float64(s.Requests-s.Successes-s.Dropped) / float64(s.Requests)
}

// Violation is a bound a window broke, with the figure it had.
type Violation struct {
	Term Term
	Got  float64
	// Unanswered is, for a latency bound broken by requests that got no
	// answer at all, their share of the window's requests (Got is then
	// +Inf: no latency is within the bound).
	Unanswered float64
}

// String says what broke, e.g. "p99 412ms > 250ms", or "p99 > 250ms:
// 100% of requests got no answer".
func (v Violation) String() string {
	if v.Unanswered > 0 {
		return fmt.Sprintf("%s > %s: %s of requests got no answer", v.Term.Metric, v.Term.format(v.Term.Max),
			strconv.FormatFloat(v.Unanswered*100, 'g', 4, 64)+"%")
	}
	return fmt.Sprintf("%s %s > %s", v.Term.Metric, v.Term.format(v.Got), v.Term.format(v.Term.Max))
}

// LatencyBound is the largest latency an objective's terms allow, ms, and
// whether it bounds latency at all.
func (o Objective) LatencyBound() (float64, bool) {
	var most float64
	for _, t := range o.Terms {
		if t.Metric.IsLatency() {
			most = max(most, t.Max)
		}
	}
	return most, most > 0
}

// Bounds reports whether the objective has a term of metric m.
func (o Objective) Bounds(m Metric) bool {
	for _, t := range o.Terms {
		if t.Metric == m {
			return true
		}
	}
	return false
}

// Quantile is the share of requests a latency metric's bound holds for:
// 0.99 for p99; 0 for the other metrics.
func (m Metric) Quantile() float64 {
	switch m {
	case MetricP50:
		return 0.5
	case MetricP90:
		return 0.9
	case MetricP95:
		return 0.95
	case MetricP99:
		return 0.99
	case MetricP999:
		return 0.999
	}
	return 0
}

// Unanswered is the share of s's requests that got no answer (no status:
// refused, reset, timed out, dropped), whose latency no percentile holds.
func (s Stats) Unanswered() float64 {
	if s.Requests == 0 {
		return 0
	}
	return float64(s.StatusCodes["0"]) / float64(s.Requests)
}

// Check returns the bounds s breaks, in the objective's order; none means
// s meets the objective. A window without requests meets no objective.
// Latency percentiles are of the requests answered (a refused connection
// "answers" in microseconds): a request with no answer is slower than any
// bound, so a latency bound is broken when more requests got no answer
// than its percentile leaves out (over 1% for p99), whatever the answered
// ones took. (Under that share the answered percentile stands: the one
// over every request lies a little higher, at the answered q/(1-u).)
func (o Objective) Check(s Stats) []Violation {
	if s.Requests == 0 {
		return []Violation{{Term: Term{Metric: MetricErrors}, Got: 1}}
	}
	var broken []Violation
	for _, b := range o.Terms {
		if u := s.Unanswered(); b.Metric.IsLatency() && u > 1-b.Metric.Quantile() {
			broken = append(broken, Violation{Term: b, Got: math.Inf(1), Unanswered: u})
			continue
		}
		if got := b.Value(s); got > b.Max {
			broken = append(broken, Violation{Term: b, Got: got})
		}
	}
	return broken
}

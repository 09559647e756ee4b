// Command testsummary reads `go test -json` on its standard input and
// prints what a reader of a long test log needs: each package's result,
// the whole output of every test that failed, every test that was
// skipped with its reason, a count of each at the end, and the ten
// slowest tests with their share of the suite's wall time. It exits 1
// when a test failed or when a test was skipped for a reason that
// -allow-skip does not match: a skipped test proves nothing, so a suite
// that skips one is not green (a skip for another operating system is
// the exception such a pattern names).
//
//	go test -json ./... | go run ./scripts/testsummary -name unit -allow-skip 'needs Linux|on this OS'
//
// With -slowest-only it prints only the slowest tests, for streams already
// summarized one by one (make test's two parts, side by side and alone).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// slowTest is how long a top-level test runs before its pass is printed:
// a long suite then shows where it is and where its time goes.
const slowTest = 5 // seconds

// slowest is how many of the slowest top-level tests the summary lists,
// with their share of the suite's wall time, so that growth is visible.
const slowest = 10

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// timing is how long one top-level test ran, whatever its result.
type timing struct {
	test    string // "package Test"
	elapsed float64
}

// skip is one skipped test and why.
type skip struct {
	test, reason string
	allowed      bool
}

// tally follows a test stream.
type tally struct {
	out    io.Writer
	allow  *regexp.Regexp
	output map[string]*strings.Builder // per package and test, until it ends
	passed int
	failed []string
	// said is each failed test's own lines (what it logged and the checks
	// it failed), repeated at the end where a log cut short still has them.
	said    map[string][]string
	skipped []skip
	pkgFail []string
	timings []timing
	// from is when each test that waited began its own work, and how its
	// time is then marked: a test that measures from when it began to run
	// alone (its "measuring alone from" line), one that starts JVMs from
	// when it got its JVM slot ("a JVM slot from"); not from when it began
	// to wait for the tests before it.
	from map[string]mark
	// first and last are the times of the first and last events: the
	// suite's wall time lies between them.
	first, last time.Time
}

func main() {
	name := flag.String("name", "tests", "what the suite is called in the summary")
	allow := flag.String("allow-skip", "", "a regular expression: skips whose reason matches it do not fail the suite")
	slowestOnly := flag.Bool("slowest-only", false, "print only the slowest tests (of streams already summarized) and exit 0")
	flag.Parse()
	t := &tally{out: os.Stdout, output: map[string]*strings.Builder{}}
	if *allow != "" {
		re, err := regexp.Compile(*allow)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testsummary: -allow-skip: %v\n", err)
			os.Exit(2)
		}
		t.allow = re
	}
	if *slowestOnly {
		t.out = io.Discard
	}
	if err := t.read(os.Stdin); err != nil {
		fmt.Fprintf(os.Stderr, "testsummary: %v\n", err)
		os.Exit(1)
	}
	if *slowestOnly {
		t.out = os.Stdout
		t.slowestTests(*name)
		return
	}
	if !t.summary(*name) {
		os.Exit(1)
	}
}

// read consumes the stream; a line that is not an event (a build error
// printed before any test ran) is printed as it is.
func (t *tally) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Action == "" {
			fmt.Fprintln(t.out, sc.Text())
			continue
		}
		t.handle(ev)
	}
	return sc.Err()
}

func (t *tally) handle(ev event) {
	t.clock(ev.Time)
	if ev.Action == "output" && !ev.Time.IsZero() {
		for _, m := range marks {
			if strings.Contains(ev.Output, m.line) {
				if t.from == nil {
					t.from = map[string]mark{}
				}
				t.from[ev.Package+" "+ev.Test] = mark{line: m.line, tag: m.tag, at: ev.Time}
			}
		}
	}
	if (ev.Action == "pass" || ev.Action == "fail") && ev.Test != "" && !strings.Contains(ev.Test, "/") {
		t.timings = append(t.timings, t.timed(ev))
	}
	if ev.Test == "" {
		t.packageEvent(ev)
		return
	}
	key := ev.Package + " " + ev.Test
	switch ev.Action {
	case "output":
		b := t.output[key]
		if b == nil {
			b = &strings.Builder{}
			t.output[key] = b
		}
		b.WriteString(ev.Output)
	case "pass":
		t.passed++
		delete(t.output, key)
		if !strings.Contains(ev.Test, "/") && ev.Elapsed >= slowTest {
			fmt.Fprintf(t.out, "--- PASS: %s (%s) (%.1fs)\n", ev.Test, ev.Package, ev.Elapsed)
		}
	case "fail":
		t.failed = append(t.failed, key)
		out := t.take(key)
		if t.said == nil {
			t.said = map[string][]string{}
		}
		t.said[key] = testLines(out)
		fmt.Fprintf(t.out, "--- FAIL: %s (%s)\n%s", ev.Test, ev.Package, out)
	case "skip":
		s := skip{test: key, reason: skipReason(t.take(key))}
		s.allowed = t.allow != nil && t.allow.MatchString(s.reason)
		t.skipped = append(t.skipped, s)
		fmt.Fprintf(t.out, "--- SKIP: %s (%s): %s\n", ev.Test, ev.Package, s.reason)
	}
}

// mark is a line a test logs when its own work begins after a wait, and
// the tag its time then carries (and, once seen, when it was logged).
type mark struct {
	line, tag string
	at        time.Time
}

// marks are the lines of cmd/orchestrator's integration harness: a test
// that measures begins to run alone, one side by side that starts JVMs
// gets one of the host's JVM slots.
var marks = []mark{
	{line: "measuring alone from ", tag: "alone"},
	{line: "a JVM slot from ", tag: "from its JVM slot"},
}

// timed is how long a test ran: from its start, or, for a test that
// waited, from when its own work began (marked with the mark's tag).
func (t *tally) timed(ev event) timing {
	key := ev.Package + " " + ev.Test
	if m, ok := t.from[key]; ok && !ev.Time.Before(m.at) {
		return timing{test: key + " (" + m.tag + ")", elapsed: ev.Time.Sub(m.at).Seconds()}
	}
	return timing{test: key, elapsed: ev.Elapsed}
}

// clock notes an event's time (zero in a stream without times).
func (t *tally) clock(at time.Time) {
	if at.IsZero() {
		return
	}
	if t.first.IsZero() || at.Before(t.first) {
		t.first = at
	}
	if at.After(t.last) {
		t.last = at
	}
}

// slowestTests prints the slowest top-level tests, each with its share of
// the wall time from the first event to the last (tests that run in
// parallel can add up to more than all of it).
func (t *tally) slowestTests(name string) {
	sort.SliceStable(t.timings, func(i, j int) bool { return t.timings[i].elapsed > t.timings[j].elapsed })
	wall := t.last.Sub(t.first).Seconds()
	fmt.Fprintf(t.out, "%s: wall time %.0f s; the %d slowest tests:\n", name, wall, min(slowest, len(t.timings)))
	for _, tm := range t.timings[:min(slowest, len(t.timings))] {
		share := ""
		if wall > 0 {
			share = fmt.Sprintf(" %5.1f%%", 100*tm.elapsed/wall)
		}
		fmt.Fprintf(t.out, "%s:   %7.1f s%s  %s\n", name, tm.elapsed, share, tm.test)
	}
}

// packageEvent prints a package's own lines (its ok/FAIL line, a panic
// outside any test, build output) and notes a package that failed.
func (t *tally) packageEvent(ev event) {
	switch ev.Action {
	case "output", "build-output":
		line := ev.Output
		if strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- PASS") || line == "PASS\n" {
			return
		}
		fmt.Fprint(t.out, line)
	case "fail":
		t.pkgFail = append(t.pkgFail, ev.Package)
	}
}

func (t *tally) take(key string) string {
	b := t.output[key]
	delete(t.output, key)
	if b == nil {
		return ""
	}
	return b.String()
}

// saidLines is how many of a failed test's own lines the summary repeats:
// the last ones, where a failed check's message is.
const saidLines = 12

// saidWidth is where a repeated line is cut.
const saidWidth = 400

// testLine is the first line of a test's t.Log or t.Error ("    x_test.go:93: ...").
var testLine = regexp.MustCompile(`^    [\w.-]+\.go:\d+: `)

// testLines is the last of a test's own lines in its output, without the
// lines a multi-line message continues on (a logged report, a daemon's log).
func testLines(output string) []string {
	var lines []string
	for _, line := range strings.Split(output, "\n") {
		if !testLine.MatchString(line) {
			continue
		}
		line = strings.TrimSpace(line)
		if len(line) > saidWidth {
			line = line[:saidWidth] + " …"
		}
		lines = append(lines, line)
	}
	return lines[max(0, len(lines)-saidLines):]
}

// skipReason is what a skipped test said, without go test's own lines.
func skipReason(output string) string {
	var parts []string
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- SKIP") {
			continue
		}
		parts = append(parts, line)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " / ")
}

// summary prints the counts and reports whether the suite is green.
func (t *tally) summary(name string) bool {
	var refused []skip
	for _, s := range t.skipped {
		if !s.allowed {
			refused = append(refused, s)
		}
	}
	sort.Slice(refused, func(i, j int) bool { return refused[i].test < refused[j].test })
	t.slowestTests(name)
	fmt.Fprintf(t.out, "%s: %d passed, %d failed, %d skipped (%d for another OS)\n",
		name, t.passed, len(t.failed), len(t.skipped), len(t.skipped)-len(refused))
	for _, s := range refused {
		fmt.Fprintf(t.out, "%s: skipped, which fails the suite: %s: %s\n", name, s.test, s.reason)
	}
	for _, key := range t.failed {
		fmt.Fprintf(t.out, "%s: failed: %s; its last lines:\n", name, key)
		for _, line := range t.said[key] {
			fmt.Fprintf(t.out, "%s:     %s\n", name, line)
		}
	}
	for _, p := range t.pkgFail {
		fmt.Fprintf(t.out, "%s: package failed: %s\n", name, p)
	}
	return len(t.failed) == 0 && len(refused) == 0 && len(t.pkgFail) == 0
}

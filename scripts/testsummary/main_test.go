package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// stream is go test -json for a package with a passing test, a test
// skipped for another OS, one skipped for a missing tool and one failing.
const stream = `{"Action":"run","Package":"p","Test":"TestOK"}
{"Action":"output","Package":"p","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"pass","Package":"p","Test":"TestOK"}
{"Action":"output","Package":"p","Test":"TestOS","Output":"    x_test.go:9: a listener needs Linux\n"}
{"Action":"output","Package":"p","Test":"TestOS","Output":"--- SKIP: TestOS (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestOS"}
{"Action":"output","Package":"p","Test":"TestBrowser","Output":"    b_test.go:44: no /usr/bin/chromium\n"}
{"Action":"skip","Package":"p","Test":"TestBrowser"}
{"Action":"output","Package":"p","Test":"TestBad","Output":"    bad_test.go:3: got 1, want 2\n"}
{"Action":"fail","Package":"p","Test":"TestBad"}
not json: a build error
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.1s\n"}
{"Action":"fail","Package":"p"}
`

func TestSummary(t *testing.T) {
	var out strings.Builder
	tl := &tally{out: &out, output: map[string]*strings.Builder{}, allow: regexp.MustCompile(`needs Linux`)}
	if err := tl.read(strings.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	if tl.summary("unit") {
		t.Error("a suite with a failure and a refused skip is green")
	}
	for _, want := range []string{
		"unit: 1 passed, 1 failed, 2 skipped (1 for another OS)",
		"skipped, which fails the suite: p TestBrowser: b_test.go:44: no /usr/bin/chromium",
		"--- FAIL: TestBad (p)\n    bad_test.go:3: got 1, want 2",
		"not json: a build error",
		"package failed: p",
		"unit: failed: p TestBad; its last lines:\nunit:     bad_test.go:3: got 1, want 2\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "skipped, which fails the suite: p TestOS") {
		t.Error("a skip for another OS failed the suite")
	}
}

func TestSummaryGreen(t *testing.T) {
	var out strings.Builder
	tl := &tally{out: &out, output: map[string]*strings.Builder{}}
	if err := tl.read(strings.NewReader(strings.SplitAfter(stream, "\n")[0] + strings.SplitAfter(stream, "\n")[2])); err != nil {
		t.Fatal(err)
	}
	if !tl.summary("unit") {
		t.Errorf("a suite of one passing test is not green:\n%s", out.String())
	}
}

// The summary lists the slowest top-level tests, failed ones too, with
// their share of the wall time between the first and the last event.
func TestSummarySlowest(t *testing.T) {
	timed := `{"Time":"2026-11-26T10:00:00Z","Action":"start","Package":"p"}
{"Time":"2026-11-26T10:00:01Z","Action":"pass","Package":"p","Test":"TestQuick","Elapsed":1}
{"Time":"2026-11-26T10:00:30Z","Action":"fail","Package":"p","Test":"TestSlow","Elapsed":29}
{"Time":"2026-11-26T10:00:30Z","Action":"pass","Package":"p","Test":"TestSlow/part","Elapsed":28}
{"Time":"2026-11-26T10:01:40Z","Action":"pass","Package":"p","Test":"TestSlower","Elapsed":50}
{"Time":"2026-11-26T10:01:40Z","Action":"fail","Package":"p","Elapsed":100}
`
	var out strings.Builder
	tl := &tally{out: &out, output: map[string]*strings.Builder{}}
	if err := tl.read(strings.NewReader(timed)); err != nil {
		t.Fatal(err)
	}
	tl.summary("integration")
	got := out.String()
	for _, want := range []string{
		"integration: wall time 100 s; the 3 slowest tests:",
		"integration:      50.0 s  50.0%  p TestSlower\nintegration:      29.0 s  29.0%  p TestSlow\nintegration:       1.0 s   1.0%  p TestQuick\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TestSlow/part") {
		t.Errorf("a subtest is listed among the slowest:\n%s", got)
	}
}

// A test that waited is timed from when its own work began, not from when
// it began to wait: one that measures from when it began to run alone,
// one side by side that starts JVMs from when it got its JVM slot.
func TestSummaryTimesFromTheMark(t *testing.T) {
	for _, tc := range []struct {
		name, test, line, want string
	}{
		{"measure", "TestMeasureB", "measuring alone from 10:01:00", "measure:      40.0 s  40.0%  p TestMeasureB (alone)"},
		{"side", "TestOwn", "a JVM slot from 10:01:00 (waited 1m0s)", "side:      40.0 s  40.0%  p TestOwn (from its JVM slot)"},
	} {
		stream := fmt.Sprintf(`{"Time":"2026-11-26T10:00:00Z","Action":"start","Package":"p"}
{"Time":"2026-11-26T10:00:00Z","Action":"run","Package":"p","Test":"%[1]s"}
{"Time":"2026-11-26T10:01:00Z","Action":"output","Package":"p","Test":"%[1]s","Output":"    x_test.go:9: %[2]s\n"}
{"Time":"2026-11-26T10:01:40Z","Action":"pass","Package":"p","Test":"%[1]s","Elapsed":100}
{"Time":"2026-11-26T10:01:40Z","Action":"pass","Package":"p","Elapsed":100}
`, tc.test, tc.line)
		var out strings.Builder
		tl := &tally{out: &out, output: map[string]*strings.Builder{}}
		if err := tl.read(strings.NewReader(stream)); err != nil {
			t.Fatal(err)
		}
		tl.slowestTests(tc.name)
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%s: got\n%s\nwant a line %q", tc.name, out.String(), tc.want)
		}
	}
}

// TestFailedTestsLastLines: a failed test's own lines are repeated at the
// end, the last of them, without the lines a logged report continues on.
func TestFailedTestsLastLines(t *testing.T) {
	var out strings.Builder
	out.WriteString("=== RUN   TestLong\n    long_test.go:10: report:\n        a report's line\n")
	for i := range 20 {
		fmt.Fprintf(&out, "    long_test.go:%d: line %d\n", 20+i, i)
	}
	out.WriteString("    long_test.go:99: want the retransmissions seen\n        daemon: a log line\n--- FAIL: TestLong (1.00s)\n")
	got := testLines(out.String())
	if len(got) != saidLines || got[len(got)-1] != "long_test.go:99: want the retransmissions seen" {
		t.Errorf("last lines %q: want the last %d, ending with the failed check", got, saidLines)
	}
	for _, line := range got {
		if strings.Contains(line, "report's line") || strings.Contains(line, "daemon") {
			t.Errorf("a continuation line repeated: %q", line)
		}
	}
}

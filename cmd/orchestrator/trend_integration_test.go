//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/trend"
)

// TestMeasureRunsTrend makes eight real runs of one spec on the Go target, all
// labelled branch=main: four whose requests sleep 1 s, then four on the
// slower setting, whose requests sleep 4 s (a quarter of the throughput
// whatever the neighbours do to the CPU). runs trend finds one change
// point, at the first slower run, worse; the daemon's trend page marks it
// on its chart and in its table, and no other, in Chromium.
func TestMeasureRunsTrend(t *testing.T) {
	// Alone: side by side, a CPU the tests beside it saturated made the
	// normal runs 20.4 to 33.2 req/s (40 clients on 1 s sleeps), and four
	// runs a side no longer told the two settings apart.
	alone(t)
	db := filepath.Join(t.TempDir(), "history.db")
	// checkSpec's run, its stage 5 s: four runs a side in under 90 s.
	normal, slower := heavySpec(t, "trend-it", "5s", "1000"), heavySpec(t, "trend-it", "5s", "4000")
	var ids []string
	for i := range 8 {
		file, setting := normal, "normal"
		if i >= 4 {
			file, setting = slower, "slower"
		}
		start := time.Now()
		code, stdout, stderr := runCLI(t, nil, "run", "-q", "--db", db, "-f", file, "-o", "json",
			"--label", "branch=main", "--label", "setting="+setting, "--label", fmt.Sprintf("build=%d", i+1))
		if code != exitOK {
			t.Fatalf("run %d (%s): exit %d\n%s", i+1, setting, code, stderr)
		}
		run, _ := storedRun(t, db, stdout)
		ids = append(ids, run.ID)
		t.Logf("run %d (%s): %s in %s", i+1, setting, run.ID, time.Since(start).Round(100*time.Millisecond))
	}

	code, table, stderr := runCLI(t, nil, "runs", "trend", "trend-it", "--db", db, "--target", "go", "--figure", "throughput", "--label", "branch=main")
	if code != exitOK {
		t.Fatalf("runs trend: exit %d\n%s", code, stderr)
	}
	t.Logf("runs trend:\n%s", table)
	if strings.Count(table, "▲ change point") != 1 || !strings.Contains(trendRow(table, ids[4]), "▲ change point: worse") {
		t.Errorf("runs trend marks no single worse change point at the first slower run %s:\n%s", ids[4], table)
	}

	code, out, stderr := runCLI(t, nil, "runs", "trend", "trend-it", "--db", db, "--target", "go", "--label", "branch=main", "-o", "json")
	var got trend.Trend
	if err := json.Unmarshal([]byte(out), &got); code != exitOK || err != nil {
		t.Fatalf("runs trend -o json: exit %d, %v\n%s%s", code, err, out, stderr)
	}
	if len(got.Points) != 8 || len(got.ChangePoints) != 1 || got.ChangePoints[0].RunID != ids[4] || got.ChangePoints[0].Direction != trend.Worse {
		t.Fatalf("trend: %d points, change points %+v; want 8 and one, worse, at %s", len(got.Points), got.ChangePoints, ids[4])
	}
	cp := got.ChangePoints[0]
	t.Logf("change point at run 5 (%s): %.1f -> %.1f req/s (%+.1f %%), p = %.3f", cp.RunID, cp.Before, cp.After, cp.Change, cp.PValue)

	for _, bad := range []struct{ flag, value string }{{"--figure", "p42"}, {"--label", "main"}} {
		if code, _, stderr := runCLI(t, nil, "runs", "trend", "trend-it", "--db", db, "--target", "go", bad.flag, bad.value); code != exitBadInput ||
			!strings.Contains(stderr, strings.TrimPrefix(bad.flag, "--")) {
			t.Errorf("%s %s: exit %d, want %d naming it\n%s", bad.flag, bad.value, code, exitBadInput, stderr)
		}
	}
	if code, _, stderr := runCLI(t, nil, "runs", "trend", "trend-it", "--db", db); code != exitBadInput || !strings.Contains(stderr, "target") {
		t.Errorf("no --target: exit %d, want %d naming it\n%s", code, exitBadInput, stderr)
	}

	d := startInProcessDaemon(t, db)
	// The same trend from the daemon's GET /runs/trend.
	code, out, stderr = runCLI(t, nil, "runs", "trend", "trend-it", "--server", d.url, "--target", "go", "--label", "branch=main", "-o", "json")
	var served trend.Trend
	if err := json.Unmarshal([]byte(out), &served); code != exitOK || err != nil || len(served.Points) != 8 ||
		len(served.ChangePoints) != 1 || served.ChangePoints[0] != cp {
		t.Errorf("runs trend --server: exit %d, %v, change points %+v, want %+v\n%s", code, err, served.ChangePoints, cp, stderr)
	}

	b := newBrowser(t, d.url, 1400, 1000)
	b.open("/ui/trend?name=trend-it&target=go&figure=throughput&label=branch%3Dmain", "trend")
	b.waitFor("the trend chart", `document.querySelector('main svg.chart[data-chart="trend-throughput"]')`, webTimeout)
	markers := eval[int](b, `document.querySelectorAll('main svg.chart[data-chart="trend-throughput"] g.marker').length`)
	marked := eval[[]string](b, `Array.from(document.querySelectorAll('main tr.change-point')).map(r => r.innerText)`)
	if markers != 1 || len(marked) != 1 || !strings.Contains(marked[0], ids[4]) || !strings.Contains(marked[0], "worse") {
		t.Errorf("the page marks %d change points on its chart and rows %q; want one, worse, at %s\n%s", markers, marked, ids[4], b.mainText())
	}
	b.screenshot("trend.png")
	b.check()
}

// trendRow is the line of the trend table that names run id.
func trendRow(table, id string) string {
	for _, line := range strings.Split(table, "\n") {
		if strings.Contains(line, id) {
			return line
		}
	}
	return ""
}

//go:build integration

package main

// The HTML report of a real three-target run, opened in headless Chromium
// from a file: it draws every chart with one series per target, logs no
// error, and asks nothing of any host. The screenshot it takes is the one
// the README shows (docs/report.png).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

// chromium is Debian's headless browser.
const chromium = "/usr/bin/chromium"

// poolProfile holds 400 then 100 clients on heavy?duration=500: at 400,
// Tomcat's 200 threads bind java-platform at 200 / 0.5 s = 400 req/s while
// virtual threads and goroutines hold every request at once (800 req/s).
// The run warms each target up as a user's run does by default: until
// steady, at the first stage's load, in the same attack as the stages,
// over a window as long as that stage (10 s: with 12, the window grew with
// it and the run took 164 to 222 s in clean-clone runs 56 to 58, against
// 155 to 171 s before, the suite's largest piece).
const poolProfile = `name: pool-400
model: closed
stages:
  - {name: c400, duration: 10s, concurrency: 400}
  - {name: c100, duration: 5s, concurrency: 100}
`

// thePoolRun is the suite's one run of the three built-in targets under
// closed load past Tomcat's pool, after the default warm-up: the HTML
// report, the thread metrics, the warm start and the warm-up until steady
// read it.
var thePoolRun sharedRun

// poolRun returns the shared three-target run and its history.
func poolRun(t *testing.T) (*bench.Run, string) {
	t.Helper()
	return thePoolRun.get(t, func(t *testing.T, dir string) (*bench.Run, error) {
		db := filepath.Join(dir, "history.db")
		profile := filepath.Join(dir, "pool-400.yaml")
		if err := os.WriteFile(profile, []byte(poolProfile), 0o644); err != nil {
			return nil, err
		}
		// The warm-up until steady ends by 30 s: on one CPU at 400
		// clients the JVMs' compilers went on for 80 s (26 s of JIT), and
		// the stage, bound by the clients and Tomcat's pool on 500 ms
		// sleeps, is steady from its first second all the same.
		return runStored(t, db, "--targets", "go,java-platform,java-virtual", "--profile", profile,
			"--endpoint", "heavy", "--param", "duration=500", "--name", "pool-400", "--warmup-max", "30s")
	})
}

func TestMeasureReportHTMLInChromium(t *testing.T) {
	alone(t)
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("no %s: %v", chromium, err)
	}
	dir := t.TempDir()
	run, db := poolRun(t)

	sizes := map[string]int{}
	for _, format := range report.ReportFormats {
		out := filepath.Join(dir, "report."+format)
		if code, _, stderr := runCLI(t, nil, "report", run.ID, "--db", db, "--format", format, "--out", out); code != exitOK {
			t.Fatalf("report --format %s: exit %d\n%s", format, code, stderr)
		}
		info, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		sizes[format] = int(info.Size())
	}
	t.Logf("report sizes (bytes): %v", sizes)
	if sizes[report.FormatHTML] > 2<<20 {
		t.Errorf("the HTML report weighs %d bytes, want under 2 MB", sizes[report.FormatHTML])
	}
	checkPoolBound(t, filepath.Join(dir, "report.json"))

	page := openInChromium(t, filepath.Join(dir, "report.html"), len(run.Targets))
	if err := os.MkdirAll(filepath.Join("..", "..", "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join("..", "..", "docs", "report.png")
	if err := os.WriteFile(png, page.screenshot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", png, len(page.screenshot))
}

// checkPoolBound reads the JSON report: at 400 clients java-platform is
// bound by its 200-thread pool at 400 req/s, the figure beside it.
func checkPoolBound(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rep.Scopes, func(sc bench.ReportScope) bool { return strings.Contains(sc.Name, "c400") })
	if i < 0 {
		t.Fatalf("no scope of the c400 stage in %d scopes", len(rep.Scopes))
	}
	c400 := rep.Scopes[i]
	for _, bd := range c400.Bounds {
		if bd.Label == bench.TargetJavaPlatform && bd.Kind == bench.BoundPool {
			if bd.Allowed != 400 || !bd.Binds || bd.Measured > bd.Allowed+bd.Slack {
				t.Errorf("java-platform's pool bound in %s = %+v, want 400 req/s binding, the measured figure under it", c400.Name, bd)
			}
			t.Logf("java-platform in %s: %s allowed (%s), %.1f measured", c400.Name, fmt.Sprint(bd.Allowed), bd.Basis, bd.Measured)
			return
		}
	}
	t.Errorf("no pool bound for java-platform in %s: %+v", c400.Name, c400.Bounds)
}

// openedPage is what Chromium made of the report: its screenshot, its
// charts as drawn and a screenshot of its time charts, the flame graphs it
// drew and, where it has one, a screenshot of its why.
type openedPage struct {
	screenshot []byte
	charts     map[string]drawnChart // by data-chart
	timeCharts []byte
	flames     int
	why        []byte
	jmc        []byte // JDK Mission Control's rules, where the page lists them
}

// headingShot scrolls the page to the first heading that says text and
// takes a screenshot; nil where no heading says it.
func headingShot(t *testing.T, tabCtx context.Context, text string) []byte {
	t.Helper()
	found, err := chromedp.Run(tabCtx, chromedp.Evaluate[bool](`(() => { const h = Array.from(document.querySelectorAll('h3'))`+
		`.find(e => e.textContent.includes(`+strconv.Quote(text)+`)); if (!h) return false; h.scrollIntoView(); return true })()`))
	if err != nil {
		t.Fatal(err)
	}
	if !found {
		return nil
	}
	shot, err := chromedp.Run(tabCtx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	return shot
}

// shotOf scrolls the page to the element of id and takes a screenshot.
func shotOf(t *testing.T, tabCtx context.Context, id string) []byte {
	t.Helper()
	if _, err := chromedp.Run(tabCtx, chromedp.Evaluate[bool](`document.getElementById('`+id+`').scrollIntoView(); true`)); err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(tabCtx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	return shot
}

// drawnChart is one chart as Chromium drew it.
type drawnChart struct {
	series int
	noData bool // it says "no data"
}

// openInChromium loads the page from its file in a fresh headless Chromium
// and checks it: no console error or exception, no request for anything
// but the file itself (or data:), and every chart with one series per
// target (a capacity search's chart, "search-N", with its target's one).
func openInChromium(t *testing.T, path string, targets int) openedPage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		// Its singleton lock and socket go to TMPDIR, and stay there when
		// the allocator kills it: 336 such directories had piled up in /tmp.
		chromedp.Env("TMPDIR="+t.TempDir()),
	)
	defer cancelAlloc()
	var mu sync.Mutex
	var problems, requests []string
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				problems = append(problems, fmt.Sprintf("console.error: %v", e.Args))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				problems = append(problems, "log: "+e.Entry.Text+" "+e.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			requests = append(requests, e.Request.URL)
		}
	}
	tabCtx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithListener(listen))
	defer cancelTab()
	url := "file://" + path
	err := chromedp.Do(tabCtx,
		chromedp.EmulateViewport(1400, 2300),
		chromedp.Navigate(url),
		chromedp.WaitReady("svg.chart"),
	)
	if err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	counts, err := chromedp.Run(tabCtx, chromedp.Evaluate[[][3]any](
		`Array.from(document.querySelectorAll('svg.chart:not(.flame)')).map(s => [s.dataset.chart, s.querySelectorAll('g.series').length, s.querySelector('text.no-data') !== null])`))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(tabCtx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	page := openedPage{screenshot: shot, charts: map[string]drawnChart{}, timeCharts: shotOf(t, tabCtx, "charts")}
	page.flames, page.why = whyInChromium(t, tabCtx)
	page.jmc = headingShot(t, tabCtx, "JDK Mission Control")
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("the page logged an error: %s", p)
	}
	for _, u := range requests {
		if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page asked for %s: it must need nothing beyond its file", u)
		}
	}
	if len(counts) < 10 {
		t.Errorf("%d charts drawn, want the bars and every time series", len(counts))
	}
	for _, c := range counts {
		id, _ := c[0].(string)
		n, ok := c[1].(float64)
		want := targets
		if strings.HasPrefix(id, "search-") {
			want = 1
		}
		if !ok || int(n) != want {
			t.Errorf("chart %v has %v series, want %d", id, c[1], want)
		}
		noData, _ := c[2].(bool)
		page.charts[id] = drawnChart{series: int(n), noData: noData}
	}
	t.Logf("%d charts, each with %d series; %d requests, all for the file", len(counts), targets, len(requests))
	return page
}

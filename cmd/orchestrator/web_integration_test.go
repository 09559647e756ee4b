//go:build integration

package main

// The daemon's web page in headless Chromium (Debian's chromium, driven
// with chromedp) against a real daemon making real runs on the Docker
// engine: the history, the form, the live view, the report, a comparison
// and a cancel, as a user goes through them. No console error, no request
// beyond the daemon. The screenshots are the README's (docs/web-*.png).
// A second test measures the page's weight and the history's first render
// over 1,000 stored runs, and drives the page of a daemon with a token.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/store"
)

// webTimeout bounds a wait in the browser; a short run takes about 15 s.
const webTimeout = 2 * shortRunTimeout

// browser is one headless Chromium tab and what it logged and asked for.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string // the daemon's URL

	mu       sync.Mutex
	problems []string
	expected []string // errors the test provokes: "status of 400 ...|URL suffix"
	requests []string
	auth     map[string]string // URL -> the Authorization header it was sent with
}

// newBrowser starts Chromium with a fresh profile (no cache) and a tab of
// width x height.
func newBrowser(t *testing.T, base string, width, height int64) *browser {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("no %s: %v", chromium, err)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
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
	b := &browser{t: t, base: base, auth: map[string]string{}}
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithListener(b.listen))
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	b.ctx = ctx
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

func (b *browser) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
			b.problems = append(b.problems, fmt.Sprintf("console.%s: %v", e.Type, e.Args))
		}
	case *runtime.EventExceptionThrown:
		b.problems = append(b.problems, "exception: "+e.ExceptionDetails.Text+" "+describe(e.ExceptionDetails.Exception))
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError && !b.isExpected(e.Entry.Text, e.Entry.URL) {
			b.problems = append(b.problems, "log: "+e.Entry.Text+" "+e.Entry.URL)
		}
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, e.Request.URL)
		for k, v := range e.Request.Headers {
			if strings.EqualFold(k, "Authorization") {
				b.auth[e.Request.URL] = fmt.Sprint(v)
			}
		}
	}
}

func describe(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	return o.Description
}

// expect lets one error through that the test provokes on purpose: the
// browser logs every 4xx answer to a fetch as an error.
func (b *browser) expect(text, urlSuffix string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expected = append(b.expected, text+"|"+urlSuffix)
}

func (b *browser) isExpected(text, u string) bool {
	for i, e := range b.expected {
		want, suffix, _ := strings.Cut(e, "|")
		if strings.Contains(text, want) && strings.HasSuffix(u, suffix) {
			b.expected = slices.Delete(b.expected, i, i+1)
			return true
		}
	}
	return false
}

// check fails the test for every console error and every request that
// went anywhere but the daemon.
func (b *browser) check() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Errorf("the page logged an error: %s", p)
	}
	for _, u := range b.requests {
		if !strings.HasPrefix(u, b.base+"/") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "blob:"+b.base+"/") {
			b.t.Errorf("the page asked for %s: everything must come from the daemon (%s)", u, b.base)
		}
	}
	for _, e := range b.expected {
		b.t.Errorf("expected error %q never came", e)
	}
	b.t.Logf("%d requests, all to %s; no console errors", len(b.requests), b.base)
}

func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, webTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v\n%s", what, err, b.mainText())
	}
}

// eval evaluates a script in the page.
func eval[T any](b *browser, script string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](script, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", script, err)
	}
	return v
}

// waitFor polls a script until it is true, or fails the test.
func (b *browser) waitFor(what, script string, timeout time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool]("!!("+script+")"))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s: not after %s (%v)\n%s", what, timeout, err, b.mainText())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mainText is the page's content as text, for failure messages.
func (b *browser) mainText() string {
	text, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(document.getElementById('main') || document.body || {}).innerText || ''`))
	if len(text) > 2000 {
		text = text[:2000] + "…"
	}
	return text
}

// open navigates to a page of the daemon and waits for its part.
func (b *browser) open(path, page string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.base+path))
	b.waitFor("page "+page+" at "+path, `document.querySelector('main [data-page="`+page+`"]')`, webTimeout)
}

// click clicks the element a CSS selector finds, in the page's script.
func (b *browser) click(selector string) {
	b.t.Helper()
	eval[chromedp.Void](b, `document.querySelector(`+jsString(selector)+`).click()`)
}

// fill sets a form control's value.
func (b *browser) fill(selector, value string) {
	b.t.Helper()
	eval[chromedp.Void](b, `(() => { const c = document.querySelector(`+jsString(selector)+`); c.value = `+jsString(value)+
		`; c.dispatchEvent(new Event('input', {bubbles: true})); c.dispatchEvent(new Event('change', {bubbles: true})); })()`)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// screenshot saves the viewport as docs/NAME, the README's.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	shot, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "docs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), shot, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot docs/%s (%d KB)", name, len(shot)/1024)
}

// partWeight is the size of the last part the page fetched, in bytes.
func (b *browser) partWeight() int {
	return eval[int](b, `performance.getEntriesByType('resource').filter(r => r.name.includes('/ui/parts/')).pop().encodedBodySize`)
}

// webStages are the form's run: two closed stages on heavy?duration=20,
// each long enough for a comparison to test it whatever the steady part
// cuts: the detector cuts at most half a stage's seconds, and a test needs
// 5 (stats.MinBatches). Stages of 7 s could keep 4: clean-clone run 38,
// its CPUs shared with other tests' JVM starts, compared two runs with
// every figure untested.
var webStages = [][2]string{{"10s", "20"}, {"10s", "50"}}

func TestWebInChromium(t *testing.T) {
	sideBySide(t)
	// Weighed as a long test, though it holds its slot a minute: it waits
	// on a browser and a run more than it computes, so early it fills the
	// CPUs' idle moments; served last, it ran alone at a tenth of the
	// CPUs for the part's last 37 s (clean-clone run 26).
	startsJVMs(t, 120)
	begin := time.Now()
	d := startInProcessDaemon(t, filepath.Join(t.TempDir(), "history.db"))
	a := apiClient{t: t, base: d.url}
	b := newBrowser(t, d.url, 1400, 1000)

	b.open("/", "history")
	if !strings.Contains(b.mainText(), "No runs yet") {
		t.Errorf("an empty history does not say so:\n%s", b.mainText())
	}

	first := submitThroughForm(t, b)
	watchLive(t, b, first)
	checkReport(t, b, first, 1)

	// A second run for the comparison: the same stages on requests half as
	// long, so that throughput doubles.
	second := a.submit(map[string]any{"name": "web-second", "targets": []string{"go"},
		"profile": map[string]any{"model": "closed", "stages": []map[string]any{
			{"name": "c20", "duration": webStages[0][0], "concurrency": 20}, {"name": "c50", "duration": webStages[1][0], "concurrency": 50}}},
		"warmup":   map[string]any{"duration": "2s", "rate": 20},
		"workload": map[string]any{"requests": []map[string]any{{"endpoint": "heavy", "params": map[string]string{"duration": "10"}}}}})
	a.waitSucceeded(second.ID)

	checkWebHistory(t, b, first, second.ID)
	checkComparison(t, b, first, second.ID)
	canceled := checkCancel(t, b, a)
	checkNoCrossSiteWrites(t, a, d.url, first)

	// The history as the README shows it: three runs, one canceled.
	b.click(`header nav a[data-page="history"]`)
	b.waitFor("the history of three runs", `document.querySelector('main tr[data-run="`+canceled+`"]')`, webTimeout)
	b.screenshot("web-history.png")
	b.check()
	t.Logf("whole test %s", time.Since(begin).Round(time.Second))
}

// submitThroughForm fills the new run form: first with a concurrency the
// daemon refuses, whose error must appear next to that field, then right.
// It returns the run's ID, from the live view the form leads to.
func submitThroughForm(t *testing.T, b *browser) string {
	t.Helper()
	b.click(`header nav a[data-page="new"]`)
	b.waitFor("the form", `document.querySelector('form#new-run')`, webTimeout)
	b.fill(`[data-field="name"]`, "web-first")
	b.click(`input[data-field="targets"][value="java-platform"]`)
	b.click(`input[data-field="targets"][value="java-virtual"]`)
	b.click(`input[name="load-mode"][value="custom"]`)
	b.fill(`[data-field="profile.stages[0].name"]`, "c20")
	b.fill(`[data-field="profile.stages[0].duration"]`, webStages[0][0])
	b.fill(`[data-field="profile.stages[0].concurrency"]`, "100000") // above the guardrail
	b.click(`[data-add-row="stages"]`)
	b.fill(`[data-field="profile.stages[1].name"]`, "c50")
	b.fill(`[data-field="profile.stages[1].duration"]`, webStages[1][0])
	b.fill(`[data-field="profile.stages[1].concurrency"]`, webStages[1][1])
	b.fill(`[data-field="workload.requests[0].endpoint"]`, "heavy")
	b.fill(`[data-field="workload.requests[0].params"]`, "duration=20")
	b.fill(`[data-field="warmup.duration"]`, "2s")
	b.fill(`[data-field="warmup.rate"]`, "20")

	b.expect("status of 400", "/runs")
	b.click(`form#new-run button[type="submit"]`)
	field := "profile.stages[0].concurrency"
	b.waitFor("the API's field error", `document.querySelector('.field-error[data-error-for="`+field+`"]')`, webTimeout)
	// Next to the field: in the same cell as the input the field names.
	where := eval[string](b, `(() => {
		const input = document.querySelector('[data-field="`+field+`"]');
		const error = document.querySelector('.field-error[data-error-for="`+field+`"]');
		return input.closest('.field') === error.closest('.field') ? 'beside ' + input.getAttribute('aria-invalid') + ': ' + error.textContent : 'elsewhere';
	})()`)
	if !strings.HasPrefix(where, "beside true: must be from 1 to ") {
		t.Errorf("the API's error for %s: %q, want it beside the field, the field marked invalid", field, where)
	}
	t.Logf("bad value: %s", where)
	eval[chromedp.Void](b, `window.scrollTo(0, 0)`)
	b.screenshot("web-new.png")

	b.fill(`[data-field="profile.stages[0].concurrency"]`, webStages[0][1])
	b.click(`form#new-run button[type="submit"]`)
	b.waitFor("the live view", `document.querySelector('main [data-live]')`, webTimeout)
	id := eval[string](b, `document.querySelector('main [data-live]').dataset.run`)
	if path := eval[string](b, `location.pathname`); path != "/ui/runs/"+id {
		t.Errorf("after the form, the page is %s, want /ui/runs/%s", path, id)
	}
	return id
}

// watchLive waits for the live view to update three times, then for the
// run to end and the page to become its report.
func watchLive(t *testing.T, b *browser, id string) {
	t.Helper()
	b.waitFor("three live updates", `+document.querySelector('main [data-live]').dataset.updates >= 3`, webTimeout)
	live := eval[map[string]any](b, `(() => {
		const page = document.querySelector('main [data-live]');
		const row = page.querySelector('tr[data-key="go"]');
		return {updates: +page.dataset.updates, throughput: row.querySelector('[data-col=throughput]').textContent,
			lines: page.querySelectorAll('svg.chart g.series path').length, charts: page.querySelectorAll('svg.chart').length,
			now: page.querySelector('.now').textContent.replace(/\s+/g, ' ').trim()};
	})()`)
	t.Logf("live view: %v", live)
	if live["charts"] != 3.0 || live["lines"] != 3.0 || live["throughput"] == "-" {
		t.Errorf("the live view after three updates: %v, want three charts with a line each and a throughput", live)
	}
	t.Logf("live part %d bytes", b.partWeight())
	b.waitFor("the second stage", `+document.querySelector('main [data-live]').dataset.updates >= 9`, webTimeout)
	b.screenshot("web-live.png")
	b.waitFor("the run's end", `document.querySelector('main [data-page="run"]')`, webTimeout)
	if updates := eval[int](b, `performance.getEntriesByType('resource').filter(r => r.name.includes('/events')).length`); updates < 1 {
		t.Error("the live view never opened the event stream")
	}
}

// checkReport checks the run's page: the report, every chart drawn with
// one series per target, and the downloads answering.
func checkReport(t *testing.T, b *browser, id string, targets int) {
	t.Helper()
	b.waitFor("the report's charts", `document.querySelectorAll('main .report svg.chart').length >= 10`, webTimeout)
	charts := eval[[][3]any](b, `Array.from(document.querySelectorAll('main .report svg.chart:not(.flame)')).map(s =>
		[s.dataset.chart, s.querySelectorAll('g.series').length, s.getBoundingClientRect().height])`)
	// A flame graph is one target's stage, drawn as frames, not series.
	flames := eval[[][2]any](b, `Array.from(document.querySelectorAll('main .report svg.chart.flame')).map(s =>
		[s.dataset.chart, s.querySelectorAll('g.frame').length])`)
	for _, f := range flames {
		if n, _ := f[1].(float64); n < 1 {
			t.Errorf("flame graph %v has no frames", f[0])
		}
	}
	for _, c := range charts {
		if n, _ := c[1].(float64); int(n) != targets {
			t.Errorf("chart %v has %v series, want %d", c[0], c[1], targets)
		}
		if h, _ := c[2].(float64); h < 50 {
			t.Errorf("chart %v is %v px high: not drawn", c[0], c[2])
		}
	}
	if status := eval[string](b, `document.querySelector('.run-head .status').textContent`); status != string(bench.RunSucceeded) {
		t.Errorf("run %s is %q on its page, want succeeded", id, status)
	}
	t.Logf("report of %s: %d charts, each with %d series, and %d flame graphs; part %d bytes", id, len(charts), targets, len(flames), b.partWeight())
	downloads := eval[[]string](b, `Promise.all(Array.from(document.querySelectorAll('a[data-download]')).map(a =>
		fetch(a.href).then(r => a.getAttribute('download') + ' ' + r.status + ' ' + r.headers.get('Content-Type'))))`)
	// The report in four formats, then the files recorded inside the
	// targets (profiles and folded stacks), each answering.
	formats := map[string]bool{}
	for _, d := range downloads {
		if name := strings.Fields(d)[0]; strings.HasPrefix(name, "threadbench-"+id+".") {
			formats[strings.TrimPrefix(name, "threadbench-"+id+".")] = true
		}
	}
	if len(formats) != 4 || !formats["md"] || !formats["csv"] || !formats["json"] || !formats["html"] {
		t.Errorf("downloads %v, want the report as markdown, CSV, JSON and HTML", downloads)
	}
	for _, d := range downloads {
		if !strings.Contains(d, " 200 ") {
			t.Errorf("download %s", d)
		}
	}
	b.screenshot("web-run.png")
}

// checkWebHistory opens the history and finds both runs, succeeded.
func checkWebHistory(t *testing.T, b *browser, ids ...string) {
	t.Helper()
	b.click(`header nav a[data-page="history"]`)
	b.waitFor("the history", `document.querySelector('main table.runs')`, webTimeout)
	for _, id := range ids {
		status := eval[string](b, `(document.querySelector('tr[data-run="`+id+`"] .status') || {}).textContent || 'absent'`)
		if status != string(bench.RunSucceeded) {
			t.Errorf("run %s in the history: %s, want succeeded", id, status)
		}
	}
	t.Logf("history part %d bytes", b.partWeight())
}

// checkComparison picks both runs in the history and compares them.
func checkComparison(t *testing.T, b *browser, base, head string) {
	t.Helper()
	b.click(`input[name="run"][value="` + base + `"]`)
	b.click(`input[name="run"][value="` + head + `"]`)
	b.click(`#compare-selected`)
	b.waitFor("the comparison", `document.querySelector('main .comparison section[data-target="go"]')`, webTimeout)
	if got := eval[string](b, `location.search`); got != "?base="+base+"&head="+head {
		t.Errorf("compare URL %s, want base %s (the older) and head %s", got, base, head)
	}
	verdicts := eval[map[string]int](b, `(() => { const n = {}; for (const c of document.querySelectorAll('main td.verdict'))
		n[c.classList[1]] = (n[c.classList[1]] || 0) + 1; return n; })()`)
	t.Logf("comparison verdicts: %v; part %d bytes", verdicts, b.partWeight())
	if verdicts["better"] == 0 || verdicts["better"]+verdicts["worse"]+verdicts["same"] < 20 {
		t.Errorf("verdicts %v, want one per figure, throughput better (requests twice as fast)", verdicts)
	}
	b.screenshot("web-compare.png")
}

// checkCancel starts a long run, finds it under Live and cancels it with
// the button and its confirmation. It returns the run's ID.
func checkCancel(t *testing.T, b *browser, a apiClient) string {
	t.Helper()
	long := a.submit(map[string]any{"name": "web-cancel", "targets": []string{"go"},
		"profile":  map[string]any{"model": "closed", "stages": []map[string]any{{"duration": "2m", "concurrency": 10}}},
		"warmup":   map[string]any{"disabled": true},
		"workload": map[string]any{"requests": []map[string]any{{"endpoint": "light"}}}})
	a.waitRun(long.ID, webTimeout, "running", func(r *bench.Run) bool { return r.Status == bench.RunRunning })
	b.click(`header nav a[data-page="live"]`)
	b.waitFor("the running run under Live", `(document.querySelector('main [data-live]') || {dataset: {}}).dataset.run === '`+long.ID+`'`, webTimeout)
	b.waitFor("its attack", `+document.querySelector('main [data-live]').dataset.updates >= 1`, webTimeout)
	b.click(`[data-cancel]`)
	b.waitFor("the confirmation", `document.getElementById('confirm-dialog').open`, webTimeout)
	b.click(`#confirm-yes`)
	b.waitFor("the canceled run's page", `(document.querySelector('main .run-head .status') || {}).textContent === 'canceled'`, webTimeout)
	if run := a.run(long.ID); run.Status != bench.RunCanceled {
		t.Errorf("run %s is %s after the cancel button, want canceled", long.ID, run.Status)
	}
	return long.ID
}

// checkNoCrossSiteWrites sends, to the real daemon with its page, what
// another site could: a cross-origin text POST and a delete, and the same
// under a rebound DNS name. Nothing is created or deleted.
func checkNoCrossSiteWrites(t *testing.T, a apiClient, base, keep string) {
	t.Helper()
	var before struct{ Runs []bench.RunSummary }
	a.getJSON("/runs?limit=100", &before)
	host := strings.TrimPrefix(base, "http://")
	spec := `{"targets":["go"],"profile":"smoke"}`
	for _, tt := range []struct {
		name, method, path, body string
		headers                  map[string]string
	}{
		{"cross-origin text POST", "POST", "/runs", spec, map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}},
		{"cross-origin form POST to the page", "POST", "/", "targets=go", map[string]string{"Origin": "http://evil.example", "Content-Type": "application/x-www-form-urlencoded"}},
		{"cross-origin DELETE", "DELETE", "/runs/" + keep, "", map[string]string{"Origin": "http://evil.example"}},
		{"rebound POST", "POST", "/runs", spec, map[string]string{"Host": "evil.example:" + portOf(host), "Content-Type": "application/json"}},
		{"rebound DELETE", "DELETE", "/runs/" + keep, "", map[string]string{"Host": "evil.example"}},
		{"rebound page", "GET", "/", "", map[string]string{"Host": "evil.example"}},
	} {
		req, err := http.NewRequest(tt.method, base+tt.path, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range tt.headers {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %s, want 403", tt.name, resp.Status)
		}
	}
	var after struct{ Runs []bench.RunSummary }
	a.getJSON("/runs?limit=100", &after)
	if len(after.Runs) != len(before.Runs) {
		t.Errorf("%d runs before the requests of other sites, %d after", len(before.Runs), len(after.Runs))
	}
	a.run(keep) // still there
}

func portOf(hostport string) string {
	u, err := url.Parse("http://" + hostport)
	if err != nil {
		return ""
	}
	return u.Port()
}

// TestWebHistoryOf1000Runs measures the first page over a history of
// 1,000 runs in a fresh browser: what it weighs and when the history is
// on screen. Then it drives the page of the same daemon with a token.
func TestWebHistoryOf1000Runs(t *testing.T) {
	sideBySide(t)
	db := filepath.Join(t.TempDir(), "history.db")
	begin := time.Now()
	ids := seedWebHistory(t, db, 1000)
	t.Logf("seeded %d runs in %s", len(ids), time.Since(begin).Round(time.Millisecond))

	d := startInProcessDaemon(t, db)
	begin = time.Now()
	resp, err := http.Get(d.url + "/ui/parts/history")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	t.Logf("the history's part over 1,000 runs: %s from the daemon", time.Since(begin).Round(time.Microsecond))
	var renders []float64
	for i := range 3 {
		b := newBrowser(t, d.url, 1400, 1000)
		b.open("/", "history")
		m := firstRender(b)
		renders = append(renders, m["rendered"].(float64))
		if i == 0 {
			t.Logf("first page with 1,000 runs stored: %.0f bytes transferred: %v", m["bytes"], m["each"])
			if m["bytes"].(float64) > 300<<10 {
				t.Errorf("the first page transfers %.0f bytes, want at most 300 KB", m["bytes"])
			}
			if m["rows"].(float64) != 25 {
				t.Errorf("the history shows %v rows, want a page of 25", m["rows"])
			}
		}
		t.Logf("fresh browser %d: first contentful paint %.0f ms, history rendered %.0f ms after navigation (%v)", i+1, m["fcp"], m["rendered"], m["timeline"])
		// The same page again in the same browser: assets revalidated, not sent.
		b.open("/", "history")
		again := firstRender(b)
		t.Logf("fresh browser %d, second load: %.0f bytes transferred, history rendered %.0f ms after navigation", i+1, again["bytes"], again["rendered"])
		b.check()
	}
	slices.Sort(renders)
	t.Logf("time to first render of the history over 1,000 runs: median %.0f ms in a fresh browser (of %v)", renders[1], renders)
	if code, _ := d.stop(); code != exitOK {
		t.Fatalf("daemon exit %d", code)
	}
	checkTokenPage(t, db, ids[len(ids)-1])
}

// firstRender reads the page's own timings: when the history was set into
// the page (app.js marks it), the first paint, and what was transferred.
func firstRender(b *browser) map[string]any {
	return eval[map[string]any](b, `(() => {
			const nav = performance.getEntriesByType('navigation')[0];
			const res = performance.getEntriesByType('resource');
			const paint = performance.getEntriesByName('first-contentful-paint')[0];
			return {rendered: performance.getEntriesByName('threadbench:rendered')[0].startTime, fcp: paint ? paint.startTime : -1,
				rows: document.querySelectorAll('table.runs tbody tr').length,
				bytes: nav.transferSize + res.reduce((n, r) => n + r.transferSize, 0),
				each: [['document', nav.transferSize]].concat(res.map(r => [new URL(r.name).pathname, r.transferSize])),
				timeline: [['document', Math.round(nav.responseEnd)]].concat(res.map(r => [new URL(r.name).pathname, Math.round(r.startTime), Math.round(r.responseEnd)]))};
		})()`)
}

// checkTokenPage serves the same history with a token: the page loads,
// asks for the token, keeps it in the tab and sends it; the API refuses
// anything without it.
func checkTokenPage(t *testing.T, db, newest string) {
	t.Helper()
	const token = "tb-web-0123456789abcdef"
	d := startDaemonWith(t, db, "--token", token)
	for path, want := range map[string]int{"/": 200, "/ui/assets/app.js": 200, "/ui/parts/history": 401, "/runs": 401} {
		resp, err := http.Get(d.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s without the token: %d, want %d", path, resp.StatusCode, want)
		}
	}
	b := newBrowser(t, d.url, 1400, 1000)
	b.expect("status of 401", "/ui/parts/history")
	b.do("open /", chromedp.Navigate(d.url+"/"))
	b.waitFor("the token dialog", `document.getElementById('token-dialog').open`, webTimeout)
	b.fill(`#token-form input[name="token"]`, token)
	b.click(`#token-form button[type="submit"]`)
	b.waitFor("the history with the token", `document.querySelector('main table.runs')`, webTimeout)
	if kept := eval[string](b, `sessionStorage.getItem('threadbench.token')`); kept != token {
		t.Errorf("sessionStorage holds %q, want the token", kept)
	}
	b.click(`a[href="/ui/runs/` + newest + `"]`)
	b.waitFor("a run with the token", `document.querySelector('main [data-page="run"]')`, webTimeout)
	b.click(`a[data-download][href$="format=markdown"]`)
	report := d.url + "/runs/" + newest + "/report?format=markdown"
	b.waitFor("the download", `performance.getEntriesByName(`+jsString(report)+`).length`, webTimeout)
	b.mu.Lock()
	auth := b.auth[report]
	b.mu.Unlock()
	if auth != "Bearer "+token {
		t.Errorf("the download was sent with Authorization %q, want the bearer token", auth)
	}
	b.check()
}

// startDaemonWith serves db on a free loopback port with more flags.
func startDaemonWith(t *testing.T, db string, args ...string) *inProcessDaemon {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	d := &inProcessDaemon{log: newDaemonLog(), cancel: cancel, exit: make(chan int, 1)}
	g := newGlobalState(ctx, strings.NewReader(""), io.Discard, d.log, testEnv(t, nil))
	go func() { d.exit <- execute(g, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db}, args...)) }()
	t.Cleanup(func() { d.stop() })
	select {
	case d.url = <-d.log.url:
		return d
	case code := <-d.exit:
		t.Fatalf("daemon exited with code %d before listening:\n%s", code, d.log)
	case <-time.After(listenTimeout):
		t.Fatalf("daemon not listening after %s:\n%s", listenTimeout, d.log)
	}
	return nil
}

// seedWebHistory stores n finished runs of one to three targets, a minute
// apart, as the store keeps them, and returns their IDs, oldest first.
func seedWebHistory(t *testing.T, path string, n int) []string {
	t.Helper()
	db := store.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	targets := []string{bench.TargetGo, bench.TargetJavaPlatform, bench.TargetJavaVirtual}
	statuses := []bench.RunStatus{bench.RunSucceeded, bench.RunSucceeded, bench.RunSucceeded, bench.RunFailed, bench.RunCanceled}
	t0 := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	ids := make([]string, n)
	for i := range n {
		created := t0.Add(time.Duration(i) * time.Minute)
		started, finished := created.Add(time.Second), created.Add(40*time.Second)
		run := &bench.Run{ID: fmt.Sprintf("seed%05d", i), Name: fmt.Sprintf("nightly-%d", i%7), Status: statuses[i%len(statuses)],
			CreatedAt: created, StartedAt: &started, FinishedAt: &finished,
			Spec: bench.RunSpec{Targets: targets[:1+i%3], Profile: bench.Profile{Name: "demo-heavy", Model: bench.ModelClosed,
				Stages: []bench.Stage{{Name: "c50", Duration: bench.Duration(10 * time.Second), Concurrency: 50}}},
				Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Params: map[string]string{"duration": "200"}, Weight: 1}}}}}
		for k, target := range run.Spec.Targets {
			total := bench.Stats{Requests: 2500, Successes: 2500, Completed: 2500, Throughput: 250 - 20*float64(k),
				Elapsed: bench.Duration(10 * time.Second), Latency: bench.Latency{Min: 200, Mean: 201, P50: 200.5, P90: 202, P95: 203, P99: 210, Max: 230}}
			run.Targets = append(run.Targets, bench.TargetResult{Target: target, Status: bench.TargetSucceeded, Total: &total,
				Stages: []bench.StageResult{{Index: 0, Name: "c50", Model: bench.ModelClosed, Duration: bench.Duration(10 * time.Second), Concurrency: 50, Stats: total}}})
		}
		if err := db.CreateRun(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		ids[i] = run.ID
	}
	return ids
}

// TestWebQueueFullInChromium: with the daemon's queue full, the new-run
// form says so beside its submit button with the wait the daemon's
// Retry-After gives, counts it down with the button disabled, and gives
// the button back when the wait is over. (The stand-in runs the runs: the
// queue and the API are the real ones.)
func TestWebQueueFullInChromium(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgPath, []byte("guardrails: {maxQueue: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := startStandInServe(t, time.Minute, nil, "--addr", "127.0.0.1:0", "--config", cfgPath)
	const spec = `{"targets":["go"],"profile":{"stages":[{"duration":"1s","rate":5}]},"warmup":{"disabled":true},"workload":{"requests":[{"endpoint":"light"}]}}`
	for i := range 2 { // one running, one waiting
		resp, body := d.request(t, "POST", "/runs", spec, map[string]string{"Content-Type": "application/json"})
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST /runs %d = %d: %s", i, resp.StatusCode, body)
		}
		if i == 0 {
			var run bench.Run
			_ = json.Unmarshal(body, &run)
			d.waitStatus(t, run.ID, bench.RunRunning)
		}
	}

	b := newBrowser(t, d.base, 1400, 1000)
	b.open("/", "history")
	b.click(`header nav a[data-page="new"]`)
	b.waitFor("the form", `document.querySelector('form#new-run')`, webTimeout)
	b.fill(`[data-field="name"]`, "web-busy")
	b.expect("status of 503", "/runs")
	b.click(`form#new-run button[type="submit"]`)
	b.waitFor("the busy note", `document.querySelector('[data-submit-state][data-busy]')`, webTimeout)
	state := eval[string](b, `document.querySelector('[data-submit-state]').textContent`)
	disabled := eval[bool](b, `document.querySelector('form#new-run button[type="submit"]').disabled`)
	if !strings.Contains(state, "the run queue is full (1 runs waiting)") || !strings.Contains(state, "submit again in 5 s") || !disabled {
		t.Errorf("beside the button: %q, disabled %v; want the queue's reason, the 5 s wait, and the button disabled", state, disabled)
	}
	b.screenshot("web-queue-full.png")
	b.waitFor("the button back", `!document.querySelector('form#new-run button[type="submit"]').disabled`, 10*time.Second)
	if state := eval[string](b, `document.querySelector('[data-submit-state]').textContent`); !strings.Contains(state, "you can submit again now") {
		t.Errorf("after the wait: %q", state)
	}
	b.check()
}

//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// A real capacity search on the Go target in a container, submitted to the
// daemon as a spec (capacity, no profile), on a short budget, CPU-bound
// work on its one CPU (or on what THREADBENCH_TEST_TARGET_CPUS leaves it):
// the answer is a rate that passed every confirmation the search ran, or
// the search says why there is none, and never that its budget ran out
// before it could confirm what passed. Either way the run is an ordinary
// one in the history, each trial a stage with its seconds and the metrics
// recorded over it, each confirmation checked for steadiness, its report
// opens with the capacity table (its HTML, in Chromium, with the search's
// chart and time charts with data), and the run compared with itself
// compares the answers.
// Nothing here depends on how fast the machine is: the rates are the
// search's own, and the budget holds its trials at their measured cost.
func TestMeasureCapacityAgainstGo(t *testing.T) {
	alone(t)
	d := startInProcessDaemon(t, t.TempDir()+"/history.db")
	a := apiClient{t: t, base: d.url}
	spec := map[string]any{
		"targets":  []string{"go"},
		"workload": map[string]any{"requests": []map[string]any{{"endpoint": "cpu", "params": map[string]string{"work": "3000"}}}},
		"warmup":   map[string]any{"duration": "2s", "rate": 10},
		"capacity": map[string]any{"objective": "p99<=200ms", "budget": "60s", "trialDuration": "2s", "confirmDuration": "5s",
			"confirmations": 2, "settle": "500ms", "startRate": 160},
	}
	if cpus := targetCPUs(t); cpus > 0 {
		spec["limits"] = map[string]any{"cpus": cpus}
	}
	queued := a.submit(spec)
	run := a.waitRun(queued.ID, 3*time.Minute, "finished", func(r *bench.Run) bool { return r.Status.Finished() })
	if run.Status != bench.RunSucceeded {
		t.Fatalf("run %s %s: %s", run.ID, run.Status, run.Error)
	}
	if run.Spec.Profile.Name != bench.CapacityProfileName {
		t.Errorf("stored profile %+v, want the search's own", run.Spec.Profile)
	}
	tr := run.Target("go")
	c := tr.Capacity
	if c == nil || c.Objective != "p99<=200ms" || c.Trials != len(tr.Stages) || c.Trials == 0 {
		t.Fatalf("capacity %+v with %d stages: want every trial stored as a stage", c, len(tr.Stages))
	}
	t.Logf("go carries %.1f req/s within %s, stop %s: %s; %d trials in %s", c.Rate, c.Objective, c.Stop, c.Reason, c.Trials, c.Spent)
	for _, st := range tr.Stages {
		if st.Model != bench.ModelOpen || st.Stats.Requests == 0 || !strings.HasSuffix(st.Name, "/s") {
			t.Errorf("stage %+v: want an open-model trial with requests", st)
		}
	}
	switch {
	case c.Stop == "generator-bound":
		if !strings.Contains(c.Reason, "load generator is the limit") {
			t.Errorf("reason %q", c.Reason)
		}
	case c.Rate > 0:
		checkConfirmed(t, tr, c, 2, 200)
	default:
		t.Errorf("no rate confirmed, stop %s (%s): want a confirmed rate, or the generator named as the limit", c.Stop, c.Reason)
	}
	checkTrialSeconds(t, tr)
	if resp, body := a.do("GET", "/runs/"+run.ID+"/report?format=table", nil); resp.StatusCode != 200 || !strings.HasPrefix(string(body), "Capacity within p99<=200ms") {
		t.Errorf("GET report: %d, does not open with the capacity table:\n%s", resp.StatusCode, body)
	}
	checkSearchReport(t, a, run.ID, c)
	openSearchReport(t, a, run.ID)
	openSearchPage(t, d.url, run.ID)
	var cmp bench.Comparison
	a.getJSON("/compare?base="+run.ID+"&head="+run.ID, &cmp)
	found := false
	for _, tc := range cmp.Targets {
		for _, m := range tc.Metrics {
			found = found || m.Name == "capacity" && m.Base == c.Rate && m.Head == c.Rate
		}
	}
	if !found {
		t.Errorf("GET /compare: no capacity figure of %.1f req/s in %+v", c.Rate, cmp.Targets)
	}
}

// checkTrialSeconds checks that every trial kept its per-second series
// like any stage: at least its whole seconds, stored as its stage's on the
// search's clock (from its own start on, no second twice), and the
// metrics recorded over the whole search summarised trial by trial.
func checkTrialSeconds(t *testing.T, tr *bench.TargetResult) {
	t.Helper()
	seen := map[int]int{}
	for _, st := range tr.Stages {
		n, from := 0, int(st.StartOffset.D()/time.Second)
		for _, b := range tr.Seconds {
			if b.Stage != st.Index {
				continue
			}
			if prev, twice := seen[b.Second]; twice || b.Second < from {
				t.Errorf("trial %d's second at %d s: before its start at %s, or stored for trial %d too", st.Index, b.Second, st.StartOffset, prev)
			}
			seen[b.Second], n = st.Index, n+1
		}
		if want := int(st.Duration.D() / time.Second); n < want {
			t.Errorf("trial %d (%s) stored %d seconds, want its %d", st.Index, st.Name, n, want)
		}
		if !slices.ContainsFunc(tr.Resources, func(r bench.StageResources) bool { return r.Stage == st.Index && !r.Warmup }) {
			t.Errorf("trial %d has no resources recorded", st.Index)
		}
	}
	if len(tr.Series) == 0 {
		t.Error("no series recorded over the search")
	}
	t.Logf("%d seconds stored over %d trials; series %v", len(tr.Seconds), len(tr.Stages), tr.Series)
}

// checkSearchReport reads the run's JSON report: its search is every
// trial the run stored, each confirmation checked for steadiness (5 s of
// seconds, the fewest the detector judges), and it has no whole-search
// scope and no stage scope.
func checkSearchReport(t *testing.T, a apiClient, id string, c *bench.CapacityResult) {
	t.Helper()
	var rep bench.Report
	a.getJSON("/runs/"+id+"/report?format=json", &rep)
	if rep.Searches == nil || len(rep.Searches.Targets) != 1 || len(rep.Searches.Targets[0].Trials) != c.Trials {
		t.Fatalf("searches %+v, want the %d trials of the one target", rep.Searches, c.Trials)
	}
	for _, tr := range rep.Searches.Targets[0].Trials {
		if tr.Phase == "confirm" && tr.Steady == nil {
			t.Errorf("confirmation %d not checked for steadiness: its seconds were not kept (too few: %v)", tr.Stage, tr.TooShort)
		}
		if tr.Steady != nil {
			t.Logf("confirmation %d at %.0f req/s: %+v", tr.Stage, tr.Rate, *tr.Steady)
		}
	}
	for _, sc := range rep.Scopes {
		if sc.Stage != nil || sc.Name == "whole attack" {
			t.Errorf("scope %q of a search: stage %v", sc.Name, sc.Stage)
		}
	}
	for _, f := range rep.Findings {
		t.Logf("finding: %s", f.Text)
	}
}

// openSearchReport opens a one-target capacity run's HTML report, as the
// API serves it, in Chromium: it draws the search's own chart, and its
// time charts (the offered rate stepping, throughput, p99, CPU) have data.
// The screenshots are the ones the README shows: the page's top
// (docs/capacity.png) and its time charts (docs/capacity-charts.png).
func openSearchReport(t *testing.T, a apiClient, id string) {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Logf("no %s: the HTML report is not opened (%v)", chromium, err)
		return
	}
	resp, body := a.do("GET", "/runs/"+id+"/report?format=html", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET report?format=html: %d", resp.StatusCode)
	}
	path := filepath.Join(t.TempDir(), "capacity.html")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	page := openInChromium(t, path, 1)
	for _, chart := range []string{"search-0", "offered", "throughput", "latency-p99", "cpu"} {
		if c, ok := page.charts[chart]; !ok || c.noData {
			t.Errorf("chart %s drawn %v, with no data %v: want it drawn with data", chart, ok, c.noData)
		}
	}
	for name, shot := range map[string][]byte{"capacity.png": page.screenshot, "capacity-charts.png": page.timeCharts} {
		png := filepath.Join("..", "..", "docs", name)
		if err := os.WriteFile(png, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s (%d bytes)", png, len(shot))
	}
}

// openSearchPage opens the run's page in the daemon's web UI in Chromium,
// as a user does: it opens with the answer (the capacity table, then the
// search's chart with its trials, then the run's header and findings), its
// time charts have data, and the run compared with itself on the compare
// page draws both runs' searches. No console error, nothing asked of
// anyone but the daemon.
func openSearchPage(t *testing.T, base, id string) {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Logf("no %s: the web page is not opened (%v)", chromium, err)
		return
	}
	b := newBrowser(t, base, 1400, 1000)
	b.open("/ui/runs/"+id, "run")
	b.waitFor("the report's charts", `document.querySelector('main .report svg.chart[data-chart="throughput"]')`, webTimeout)
	order := eval[[]string](b, `Array.from(document.querySelectorAll('main .report section[id]')).map(s => s.id)`)
	if i, j, k := slices.Index(order, "capacity"), slices.Index(order, "search"), slices.Index(order, "findings"); i != 0 || j != 1 || k < j {
		t.Errorf("the page's sections %v: want the capacity table first, then the search, the findings after them", order)
	}
	charts := eval[[][3]any](b, `Array.from(document.querySelectorAll('main .report svg.chart:not(.flame)')).map(s =>
		[s.dataset.chart, s.querySelectorAll('g.series').length, s.querySelector('text.no-data') !== null])`)
	drawn := map[string]bool{}
	for _, c := range charts {
		name, _ := c[0].(string)
		series, _ := c[1].(float64)
		noData, _ := c[2].(bool)
		drawn[name] = series > 0 && !noData
	}
	for _, chart := range []string{"search-0", "offered", "throughput", "latency-p99", "cpu"} {
		if !drawn[chart] {
			t.Errorf("chart %s not drawn with data on the web page (charts: %v)", chart, charts)
		}
	}
	b.open("/ui/compare?base="+id+"&head="+id, "compare")
	b.waitFor("the comparison", `document.querySelector('main .comparison')`, webTimeout)
	if n := eval[int](b, `document.querySelectorAll('main svg.chart[data-chart^="search-"] g.series').length`); n != 2 {
		t.Errorf("the compare page draws %d searches, want both runs' one", n)
	}
	t.Logf("web page of %s: sections %v, %d charts; compare page draws both searches", id, order, len(charts))
	b.check()
}

// checkConfirmed checks a confirmed answer against the stored stages: the
// search ran the n confirmations asked (fewer only when its budget ended
// them, each having passed), each met the p99 bound (ms) at the answer and
// carried what it was offered, and the rate above it failed.
func checkConfirmed(t *testing.T, tr *bench.TargetResult, c *bench.CapacityResult, n int, p99 float64) {
	t.Helper()
	if got := len(c.Confirmations); got != n && (c.Stop != "budget" || got == 0 || got > n) {
		t.Fatalf("%d confirmations, want %d (or, when the budget ended them, at least one)", got, n)
	}
	if c.Asked != n || c.MustPass < 1 || c.MustPass > n {
		t.Errorf("%d of %d confirmations asked to pass: want %d asked", c.MustPass, c.Asked, n)
	}
	// Under the pooled rule the windows together meet the objective, and
	// one may fail on its own (a clean clone's java-platform: 1 of 2 held,
	// pooled passed); a pool that meets a percentile holds a window that
	// does. Window by window, as many pass as were asked to.
	switch {
	case c.Rule == bench.RulePooled && c.Pooled != nil:
		if !c.Pooled.Pass || c.Pooled.Held != c.Passed() || c.Passed() < 1 {
			t.Errorf("pooled %+v, %d of %d confirmations passed on their own: want the pool passed, and a window in it", c.Pooled, c.Passed(), len(c.Confirmations))
		}
	case c.Passed() < min(c.MustPass, len(c.Confirmations)):
		t.Errorf("%d of %d confirmations passed, %d of %d asked to: want at least as many as asked", c.Passed(), len(c.Confirmations), c.MustPass, c.Asked)
	}
	for _, conf := range c.Confirmations {
		if !conf.Pass {
			continue // within what a majority allows, said by the answer's sentence
		}
		st := tr.Stages[conf.Stage]
		if st.Rate != c.Rate || st.Stats.Latency.P99 > p99 || st.Stats.Successes != st.Stats.Requests {
			t.Errorf("confirmation stage %+v does not meet p99<=%gms at %.1f req/s", st, p99, c.Rate)
		}
		if st.Stats.Throughput < 0.9*c.Rate {
			t.Errorf("confirmation served %.1f req/s of %.1f offered", st.Stats.Throughput, c.Rate)
		}
	}
	// An answer held to a pool's bound has no failure above it: no rate
	// above the bound was tried.
	if held := strings.Contains(c.Reason, "held to its"); held && c.Failed != nil || !held && (c.Failed == nil || c.Failed.Rate <= c.Rate || len(c.Failed.Violations) == 0) {
		t.Errorf("failed %+v, want the next rate up with what failed (none when held to a bound: %q)", c.Failed, c.Reason)
	}
}

// java-platform on heavy?duration=200 is bound by its pool: 200 Tomcat
// threads ÷ 0.2 s = 1,000 req/s on paper, 200 threads ÷ the hold measured
// here in practice. The search must land within 3 % below that bound and
// never above 1,000, unless the generator on this machine could not
// keep up, which it must then say; no trial goes above the bound. Given no
// start rate, the search starts at that bound and the report's sentence
// names the pool. A confirmation is 8 s: 1.5 % over the
// bound queues 15 requests a second, which takes 8 s to push p99 past
// 300 ms (200 ms of sleep plus 120 ms of queue); 5 s let 1,015 req/s pass.
func TestMeasureCapacityJavaPlatformPoolBound(t *testing.T) {
	alone(t)
	db := t.TempDir() + "/history.db"
	code, stdout, stderr := runCLI(t, nil, "--db", db, "capacity", "-q", "-o", "json",
		"--targets", "java-platform", "--endpoint", "heavy", "--param", "duration=200", "--slo", "p99<=300ms",
		"--budget", "150s", "--trial", "3s", "--confirm", "8s", "--confirmations", "2",
		"--warmup", "5s", "--warmup-rate", "200", "--no-profile")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	tr := run.Target("java-platform")
	c := tr.Capacity
	if c == nil {
		t.Fatal("no capacity result stored")
	}
	t.Logf("java-platform carries %.1f req/s within %s, stop %s: %s; %d trials in %s, from %.0f req/s (%s)", c.Rate, c.Objective, c.Stop, c.Reason, c.Trials, c.Spent, c.Start, c.StartFrom)
	if c.Start != 1000 || !strings.Contains(c.StartFrom, "200-thread pool") {
		t.Errorf("started at %.1f req/s (%q), want the pool's bound, 1000", c.Start, c.StartFrom)
	}
	checkTrialSeconds(t, tr)
	for _, st := range tr.Stages {
		if st.Rate > 1000 {
			t.Errorf("a trial at %.1f req/s, above the pool's bound: no steady state carries it, and a short trial cannot show that", st.Rate)
		}
	}
	if c.Stop == "generator-bound" {
		if !strings.Contains(c.Reason, "load generator is the limit") {
			t.Errorf("reason %q", c.Reason)
		}
		return
	}
	// The pool's bound is its threads over what each request holds one
	// for: 200 ms of sleep on paper, more on a machine whose timers and
	// scheduler overshoot (a CI machine's landed at 965.4 req/s). A
	// trial's mean time is that hold plus any queue (Little: 200 threads
	// ÷ mean hold); the least queued trial that held its objective, the
	// shortest mean, measures the hold here.
	bound := 1000.0
	hold := 0.0
	for _, st := range tr.Stages {
		if l := st.Stats.Latency; l.Mean > 0 && l.P99 <= 300 && st.Stats.Successes == st.Stats.Requests && (hold == 0 || l.Mean < hold) {
			hold = l.Mean
		}
	}
	if hold > 0 {
		bound = min(bound, 200/(hold/1000))
	}
	t.Logf("the pool's bound at the hold measured here (%.1f ms): %.1f req/s", hold, bound)
	if c.Rate > 1000 || c.Rate < 0.97*bound {
		t.Errorf("rate %.1f req/s, want within 3%% below the pool's bound (%.1f at the hold measured here, 1000 on paper) and never above 1000", c.Rate, bound)
	}
	checkConfirmed(t, tr, c, 2, 300)
	code, out, stderr := runCLI(t, nil, "--db", db, "report", run.ID)
	if code != exitOK || !strings.Contains(out, "bounded by its 200-thread pool (1000 allowed)") || !strings.HasPrefix(out, "Capacity within p99<=300ms") {
		t.Errorf("report exit %d: it does not open with the capacity table, or its sentence does not name the pool:\n%s\n%s", code, out, stderr)
	}
}

// A real sweep of the Go target, 1 to 32 clients on heavy?duration=50: an
// ordinary closed run whose JSON report carries the USL fit, near-linear
// scaling (one client ≈ 20 req/s, hardly any contention).
func TestMeasureCapacitySweepAgainstGo(t *testing.T) {
	alone(t)
	db := t.TempDir() + "/history.db"
	code, stdout, stderr := runCLI(t, nil, "--db", db, "capacity", "-q", "-o", "json",
		"--targets", "go", "--endpoint", "heavy", "--param", "duration=50",
		"--sweep", "1,2,4,8,16,32", "--sweep-duration", "2s", "--warmup", "1s")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	code, out, stderr := runCLI(t, nil, "--db", db, "report", run.ID, "--format", "json")
	if code != exitOK {
		t.Fatalf("report exit %d\n%s", code, stderr)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Scalability) != 1 {
		t.Fatalf("scalability %+v, want one fit", rep.Scalability)
	}
	f := rep.Scalability[0]
	t.Logf("busy machine: %s", f.Sentence)
	if f.Target != "go" || f.Points != 6 || f.Poor != "" || f.R2 < 0.9 || f.Sigma > 0.05 || f.Lambda < 15 || f.Lambda > 21 {
		t.Errorf("fit %+v, want go scaling near-linearly from about 19 req/s a client", f)
	}
}

// A target that dies in a capacity trial (here killed from outside, as an
// OutOfMemoryError kills a JVM) is started again, in a new container,
// and warmed up again before the next trial; the trial it died in fails,
// saying how; the search goes on and answers, the run succeeds, and no
// container of it is left behind. It measures nothing (an objective any
// target meets at these rates but a dead one), so it runs side by side.
func TestCapacityTargetDiesAndStartsAgain(t *testing.T) {
	sideBySide(t)
	d := startInProcessDaemon(t, t.TempDir()+"/history.db")
	a := apiClient{t: t, base: d.url}
	queued := a.submit(map[string]any{
		"targets":  []string{"go"},
		"workload": map[string]any{"requests": []map[string]any{{"endpoint": "light"}}},
		"warmup":   map[string]any{"duration": "2s", "rate": 50},
		// Rates no generator falls behind on a saturated machine: at 50 to
		// 200 req/s a clean-clone run's search stopped, generator-bound,
		// before the test could kill its target. A budget of 2 minutes,
		// though the search ends at the maximum rate in well under one:
		// on a machine saturated by the tests beside it a 3 s trial took
		// 10.9 s (restart and warm-up included), and a budget of 60 s
		// stopped the search at the death.
		"capacity": map[string]any{"objective": "p99<=1s", "budget": "120s", "trialDuration": "3s", "confirmDuration": "3s",
			"confirmations": 2, "settle": "500ms", "startRate": 10, "maxRate": 40},
	})
	a.waitRun(queued.ID, 2*time.Minute, "through its first trial", func(r *bench.Run) bool {
		return r.Status.Finished() || len(r.Targets) > 0 && len(r.Targets[0].Stages) > 0
	})
	first := docker(t, "ps", "-q", "--filter", "label=io.threadbench.run="+queued.ID)
	if first == "" {
		t.Fatal("no running container of the run to kill")
	}
	if _, err := dockerOut("kill", first); err != nil {
		if r := a.run(queued.ID); r.Status.Finished() {
			t.Fatalf("the search ended (%s) before its target could be killed: %v", r.Status, err)
		}
		t.Fatal(err)
	}
	run := a.waitRun(queued.ID, 3*time.Minute, "finished", func(r *bench.Run) bool { return r.Status.Finished() })
	if run.Status != bench.RunSucceeded {
		t.Fatalf("run %s %s: %s", run.ID, run.Status, run.Error)
	}
	tr := run.Target("go")
	c := tr.Capacity
	if c == nil || c.Trials != len(tr.Stages) {
		t.Fatalf("capacity %+v with %d stages", c, len(tr.Stages))
	}
	t.Logf("go carries %.1f req/s, stop %s: %s; %d trials in %s", c.Rate, c.Stop, c.Reason, c.Trials, c.Spent)
	died := -1
	for i, st := range tr.Stages {
		if st.Died != "" {
			if died >= 0 {
				t.Errorf("stages %d and %d died: it was killed once", died, i)
			}
			died = i
		}
	}
	if died < 0 || !strings.Contains(tr.Stages[died].Died, "container exited with code 137") {
		t.Fatalf("no stage says the target died (killed: exit 137): %+v", tr.Stages)
	}
	if step := c.Steps[died]; step.Pass || len(step.Violations) != 1 || !strings.HasPrefix(step.Violations[0], "the target died: ") {
		t.Errorf("the trial it died in judged %+v, want a failure saying so", step)
	}
	if died+1 >= len(tr.Stages) {
		t.Fatalf("no trial after the death: the search stopped at it (%s)", c.Reason)
	}
	for _, st := range tr.Stages[died+1:] {
		if st.Stats.Successes == 0 {
			t.Errorf("trial %d (%s) after the death: no request answered, the target was not started again", st.Index, st.Name)
		}
	}
	// The answer is a rate that passed, never 0 after a pass; below a
	// rate that passed a short trial only where a longer trial failed
	// above it after the death (a busy machine breaks a confirmation).
	passedBefore, answerPassed, failedAbove := 0.0, false, false
	for i, step := range c.Steps {
		t.Logf("step %d %s %.1f req/s pass=%v %v", i, step.Phase, step.Rate, step.Pass, step.Violations)
		if step.Pass && i < died {
			passedBefore = max(passedBefore, step.Rate)
		}
		answerPassed = answerPassed || step.Pass && step.Rate == c.Rate
		failedAbove = failedAbove || i > died && !step.Pass && step.Rate > c.Rate
	}
	if c.Rate > 0 && !answerPassed || passedBefore > 0 && c.Rate <= 0 {
		t.Errorf("answer %.1f req/s (%s): want a rate that passed (%.1f did before the death)", c.Rate, c.Reason, passedBefore)
	}
	if c.Rate < passedBefore && !failedAbove {
		t.Errorf("answer %.1f req/s (%s) below %.1f, which passed before the death, with no failure above it after", c.Rate, c.Reason, passedBefore)
	}
	checkTrialSeconds(t, tr)
	if left := docker(t, "ps", "-aq", "--filter", "label=io.threadbench.run="+queued.ID); left != "" {
		t.Errorf("containers of the run left behind: %s", left)
	}
	if resp, body := a.do("GET", "/runs/"+run.ID+"/report?format=table", nil); resp.StatusCode != 200 || !strings.Contains(string(body), "the target died: container exited with code 137") {
		t.Errorf("GET report: %d, does not say the target died:\n%s", resp.StatusCode, body)
	}
}

// A JVM met cold by a capacity search (java-virtual on every JIT tier,
// warmed up 1 s at 5 req/s, its bracket doubling from 200 req/s to rates
// it cannot carry): its first failure at a rate above every rate it had
// been offered, its JIT busy in it (as read from the JVM's own compilation
// counter), is noted cold and asked again at once, after a warm-up until
// steady at the highest rate that passed below it, bounded by
// --warmup-max, which the budget does not pay for; the report says both.
// Its verdicts read the search's decisions, not its figures, but it runs
// alone: beside the side-by-side tests, a generator fell behind at 50 to
// 200 req/s and stopped a search before its target was met cold.
func TestMeasureCapacityColdJVMWarmedUp(t *testing.T) {
	alone(t)
	db := t.TempDir() + "/history.db"
	fullJIT := map[string]string{envJavaTool: ""} // C2's compiles are what a cold JVM meets
	code, stdout, stderr := runCLI(t, fullJIT, "--db", db, "capacity", "-q", "-o", "json",
		"--targets", "java-virtual", "--endpoint", "heavy", "--param", "duration=200", "--slo", "p99<=300ms",
		"--budget", "40s", "--trial", "2s", "--confirm", "2s", "--confirmations", "1", "--start-rate", "200", "--max-rate", "6400",
		"--warmup", "1s", "--warmup-rate", "5", "--warmup-max", "15s", "--no-profile")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	c := run.Target("java-virtual").Capacity
	if c == nil {
		t.Fatal("no capacity result stored")
	}
	for _, st := range c.Steps {
		t.Logf("trial %d %s %.0f req/s: served %.0f, p99 %.0f ms, pass %v %v; cold %q; warmed at %.0f: %q",
			st.Stage, st.Phase, st.Rate, st.Throughput, st.P99, st.Pass, st.Violations, st.Cold, st.WarmAt, st.Warmed)
	}
	warmed := slices.IndexFunc(c.Steps, func(st bench.CapacityTrial) bool { return st.WarmAt > 0 })
	if warmed < 1 || slices.ContainsFunc(c.Steps[warmed+1:], func(st bench.CapacityTrial) bool { return st.WarmAt > 0 }) {
		t.Fatalf("trial %d warmed up: want one trial, after a fresh JVM's first failure above a rate that passed, its JIT busy", warmed)
	}
	first, second := c.Steps[warmed-1], c.Steps[warmed]
	cold := warmed - 1
	lo := 0.0
	for _, st := range c.Steps[:cold] {
		if st.Pass {
			lo = max(lo, st.Rate)
		}
	}
	if first.Pass || first.Phase != "bracket" || !strings.Contains(first.Cold, "its JIT compiled") {
		t.Errorf("cold trial %+v: want a bracket failure whose note reads the JIT's compilation", first)
	}
	if second.Rate != first.Rate || second.WarmAt != lo || lo == 0 || !strings.HasPrefix(second.Warmed, fmt.Sprintf("warmed up at %.0f req/s", lo)) {
		t.Errorf("trial after the cold one %+v: want %.0f req/s again, warmed up at %.0f req/s (the highest that passed below) and saying how that ended", second, first.Rate, lo)
	}
	if strings.Contains(second.Warmed, "maximum") && !strings.Contains(second.Warmed, "15s maximum") {
		t.Errorf("warm-up %q: want it bounded by --warmup-max 15s", second.Warmed)
	}
	if c.Spent.D() > 40*time.Second {
		t.Errorf("the search spent %s of its 40s budget: the warm-up was charged to it", c.Spent)
	}
	code, out, stderr := runCLI(t, nil, "--db", db, "report", run.ID)
	if code != exitOK || !strings.Contains(out, "its first at a new rate, asked again: its JIT compiled") || !strings.Contains(out, second.Warmed) {
		t.Errorf("report exit %d: its trials do not say why one was asked again and how the warm-up before it ended:\n%s\n%s", code, out, stderr)
	}
}

package analysis_test

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
)

// ratesOf are the rates a result's trials offered, with each trial's
// length, as "rate/length".
func ratesOf(t *bench.TargetResult) map[string]bool {
	out := map[string]bool{}
	for _, s := range t.Stages {
		out[trialOf(s.Rate, s.Duration)] = true
	}
	return out
}

func trialOf(rate float64, d bench.Duration) string {
	return strconv.FormatFloat(rate, 'f', -1, 64) + "/" + d.String()
}

func parseDuration(t *testing.T, s string) bench.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return bench.Duration(d)
}

// scopeRate reads back the rate and length a search's scope is named by:
// "3s trials at 800 req/s".
var scopeRate = regexp.MustCompile(`^(\S+) trials at ([0-9.]+) req/s$`)

// A capacity run's trials are at rates each target's search chose: stage i
// of go (50 req/s) is no trial of java-platform's (1,000 req/s, its pool's
// bound). Its report sets targets side by side only at their answers and
// at trials they ran at the same rate for the same length: no scope is a
// stage index or a whole search, and no finding names two targets beside
// each other at a stage, at the whole search, or at a rate one of them
// never offered.
func TestSearch_ComparesOnlyLikeRates(t *testing.T) {
	run := analysistest.SearchRun(t)
	if run.Targets[0].Stages[0].Rate == run.Targets[1].Stages[0].Rate {
		t.Fatal("the fixture's first trials share a rate: it tests nothing")
	}
	rep := analysis.Analyze(run, analysis.ReportOptions{})
	rates := map[string]map[string]bool{}
	for i := range run.Targets {
		rates[run.Targets[i].Target] = ratesOf(&run.Targets[i])
	}
	if len(rep.Scopes) == 0 {
		t.Fatal("no scope: the trials go and java-virtual ran at the same rates are not set side by side")
	}
	for _, sc := range rep.Scopes {
		m := scopeRate.FindStringSubmatch(sc.Name)
		if sc.Stage != nil || m == nil || len(sc.Results) < 2 {
			t.Errorf("scope %q (stage %v, %d results): want trials of two targets or more at one rate", sc.Name, sc.Stage, len(sc.Results))
			continue
		}
		d := parseDuration(t, m[1])
		rate, _ := strconv.ParseFloat(m[2], 64)
		for _, res := range sc.Results {
			if !rates[res.Label][trialOf(rate, d)] {
				t.Errorf("scope %q sets %s beside others: it ran no %s trial at %g req/s", sc.Name, res.Label, d, rate)
			}
		}
	}
	checkFindingsCompareLikeRates(t, rep, rates)
	hasFinding(t, rep, "Capacity within p99<=300ms, by the rate each confirmed: go 1550 req/s (failed at 1600) > java-platform 970 (failed at 985) > java-virtual 775 (failed at 800)")
	hasFinding(t, rep, "Throughput, 3s trials at 800 req/s, the highest rate more than one target ran: go 800.0 req/s, java-virtual 700.0")
}

// comparing are the kinds of findings that set targets beside each other
// (ranks, pairs, resources); the others say something of each target.
var comparing = []string{"throughput", "pair", "resources"}

// checkFindingsCompareLikeRates fails the test on a finding that names two
// targets beside a stage or the whole attack, or compares them elsewhere
// than at a rate both offered for the same length. The answers' ranking
// compares answers, at no rate they were tried at.
func checkFindingsCompareLikeRates(t *testing.T, rep bench.Report, rates map[string]map[string]bool) {
	t.Helper()
	at := regexp.MustCompile(`(\S+) trials at ([0-9.]+) req/s`)
	for _, f := range rep.Findings {
		var named []string
		for label := range rates {
			if strings.Contains(f.Text, label+" ") || strings.Contains(f.Text, label+"'") {
				named = append(named, label)
			}
		}
		if len(named) < 2 || strings.HasPrefix(f.Text, "Capacity within ") {
			continue
		}
		if strings.Contains(f.Text, "stage ") || strings.Contains(f.Text, analysis.ScopeWholeName) {
			t.Errorf("finding %q names %v beside a stage or the whole search", f.Text, named)
		}
		m := at.FindStringSubmatch(f.Text)
		if m == nil {
			if slices.Contains(comparing, f.Kind) {
				t.Errorf("%s finding %q compares %v at no one rate", f.Kind, f.Text, named)
			}
			continue
		}
		d := parseDuration(t, m[1])
		rate, _ := strconv.ParseFloat(m[2], 64)
		for _, label := range named {
			if !rates[label][trialOf(rate, d)] {
				t.Errorf("finding %q names %s at %g req/s, which it never offered for %s", f.Text, label, rate, d)
			}
		}
	}
}

// Each confirmation's seconds are checked for a steady part and the
// report says so: all of go's and java-platform's settled, java-virtual's
// second climbed. Without its seconds a confirmation is said to have kept
// none, not to be steady.
func TestSearch_ConfirmationsSteady(t *testing.T) {
	run := analysistest.SearchRun(t)
	rep := analysis.Analyze(run, analysis.ReportOptions{})
	if rep.Searches == nil || len(rep.Searches.Targets) != 3 {
		t.Fatalf("searches %+v, want one per target", rep.Searches)
	}
	for _, ts := range rep.Searches.Targets {
		confirms := 0
		for _, tr := range ts.Trials {
			if tr.Phase != "confirm" {
				if tr.Steady != nil {
					t.Errorf("%s: short trial %d judged for steadiness", ts.Target, tr.Stage)
				}
				continue
			}
			if tr.Rate != ts.Rate { // java-platform's at 985 req/s, which failed
				if tr.Steady == nil || tr.Steady.Steady {
					t.Errorf("%s: failed confirmation %d's climb not seen: %+v", ts.Target, tr.Stage, tr.Steady)
				}
				continue
			}
			confirms++
			wantSteady := !(ts.Target == bench.TargetJavaVirtual && confirms == 2)
			if tr.Steady == nil || tr.Steady.Steady != wantSteady || tr.Steady.Seconds != 10 {
				t.Errorf("%s confirmation %d: steady part %+v, want steady %v over its 10 s", ts.Target, confirms, tr.Steady, wantSteady)
			}
		}
		if confirms != 3 {
			t.Errorf("%s: %d confirmations, want 3", ts.Target, confirms)
		}
	}
	hasFinding(t, rep, "Confirmations steady (their per-second throughput and p50 settled): go 3 of 3, java-platform 3 of 3.")
	hasFinding(t, rep, "java-virtual's confirmation at 775 req/s (trial 11) is not steady (p50 +")
	// the confirmation that failed is overloaded: its climb says nothing of the answer
	lacksFinding(t, rep, "confirmation at 985 req/s")

	// confirmations of fewer seconds than the detector judges are not said
	// to be steady either
	short := analysistest.SearchRun(t)
	for i := range short.Targets {
		tr := &short.Targets[i]
		var kept []bench.Bucket
		for _, b := range tr.Seconds {
			if b.Second < int(tr.Stages[b.Stage].StartOffset.D()/time.Second)+4 {
				kept = append(kept, b)
			}
		}
		tr.Seconds = kept
	}
	rep = analysis.Analyze(short, analysis.ReportOptions{})
	lacksFinding(t, rep, "Confirmations steady")
	hasFinding(t, rep, "go's confirmation at 1550 req/s (trial 11) kept too few seconds for its steadiness to be judged (5 needed)")

	// a run whose trials stored no seconds cannot be said to be steady
	for i := range run.Targets {
		run.Targets[i].Seconds = nil
	}
	rep = analysis.Analyze(run, analysis.ReportOptions{})
	lacksFinding(t, rep, "Confirmations steady")
	hasFinding(t, rep, "go's confirmation at 1550 req/s (trial 11) kept no per-second figures: its steadiness cannot be checked.")
	for _, ts := range rep.Searches.Targets {
		for _, tr := range ts.Trials {
			if tr.Steady != nil {
				t.Errorf("%s trial %d: steady part %+v from no seconds", ts.Target, tr.Stage, tr.Steady)
			}
		}
	}
}

// Each trial is drawn against the objective's figure as the search judged
// it; a run stored before the search kept its trials is judged again by
// its objective, its answer's confirmations and first failing trial as the
// search judged them.
func TestSearch_Trials(t *testing.T) {
	run := analysistest.SearchRun(t)
	rep := analysis.Analyze(run, analysis.ReportOptions{})
	jp := rep.Searches.Targets[1]
	if jp.Target != bench.TargetJavaPlatform || jp.Figure != "p99" || jp.Unit != "ms" || jp.Limit != 300 || jp.Rate != 970 ||
		jp.FailedRate != 985 || jp.Start != 1000 || len(jp.Trials) != len(run.Targets[1].Stages) {
		t.Fatalf("java-platform's search %+v", jp)
	}
	first := jp.Trials[0]
	if first.Pass || first.Rate != 1000 || first.Value < 300 || !strings.HasPrefix(first.Verdict, "fail: p99 ") || first.Value != run.Targets[1].Stages[0].Stats.Latency.P99 {
		t.Errorf("first trial %+v, want the failure at 1000 req/s with its p99", first)
	}
	// a cold first trial at a new rate says why it was asked again
	run.Targets[1].Capacity.Steps[0].Cold = "its JIT compiled 2.51 s in the 3s trial"
	if v := analysis.Analyze(run, analysis.ReportOptions{}).Searches.Targets[1].Trials[0].Verdict; !strings.HasSuffix(v, "; its first at a new rate, asked again: its JIT compiled 2.51 s in the 3s trial") {
		t.Errorf("cold trial's verdict %q, want it said why it was asked again", v)
	}
	run.Targets[1].Capacity.Steps[0].Cold = ""
	// and the trial after the warm-up it had says how that ended
	run.Targets[1].Capacity.Steps[1].Warmed = "warmed up at 800 req/s until steady, its JIT quiet: 64 s"
	if v := analysis.Analyze(run, analysis.ReportOptions{}).Searches.Targets[1].Trials[1].Verdict; !strings.HasSuffix(v, "; warmed up at 800 req/s until steady, its JIT quiet: 64 s") {
		t.Errorf("warmed trial's verdict %q, want how its warm-up ended", v)
	}
	run.Targets[1].Capacity.Steps[1].Warmed = ""
	kept := rep.Searches.Targets
	for i := range run.Targets {
		run.Targets[i].Capacity.Steps = nil
	}
	again := analysis.Analyze(run, analysis.ReportOptions{}).Searches.Targets
	for i := range kept {
		for j, tr := range kept[i].Trials {
			if a := again[i].Trials[j]; a.Pass != tr.Pass || a.Phase != tr.Phase || a.Rate != tr.Rate || a.Value != tr.Value {
				t.Errorf("%s trial %d judged again as %+v, kept as %+v", kept[i].Target, j, a, tr)
			}
		}
	}
	// an objective on errors draws the error rate in percent
	for i := range run.Targets {
		run.Targets[i].Capacity.Objective = "errors<=1%"
	}
	if ts := analysis.Analyze(run, analysis.ReportOptions{}).Searches.Targets[0]; ts.Figure != "errors" || ts.Unit != "%" || ts.Limit != 1 {
		t.Errorf("search under errors<=1%%: %s in %s up to %g", ts.Figure, ts.Unit, ts.Limit)
	}
}

// The answers are ranked by the rate each confirmed: one above another
// when the other failed at a rate it carried, the same when their
// brackets overlap.
func TestSearch_AnswersRanked(t *testing.T) {
	run := analysistest.SearchRun(t)
	r := analysis.Analyze(run, analysis.ReportOptions{}).Searches.Answers
	if r == nil || len(r.Entries) != 3 || r.Figure != "capacity" || r.Unit != "req/s" {
		t.Fatalf("answers %+v", r)
	}
	for i, want := range []string{bench.TargetGo, bench.TargetJavaPlatform, bench.TargetJavaVirtual} {
		if e := r.Entries[i]; e.Label != want || e.Same || e.VsAbove != nil {
			t.Errorf("place %d: %+v, want %s told apart from the one above by its failure", i+1, e, want)
		}
	}
	// java-virtual confirmed 960 req/s and failed only at 1,010: its
	// bracket overlaps java-platform's (970, failed at 985)
	jv := run.Targets[2].Capacity
	jv.Rate, jv.Failed.Rate = 960, 1010
	rep := analysis.Analyze(run, analysis.ReportOptions{})
	if e := rep.Searches.Answers.Entries[2]; e.Label != bench.TargetJavaVirtual || !e.Same {
		t.Errorf("java-virtual %+v, want the same as java-platform", e)
	}
	hasFinding(t, rep, "java-platform 970 (failed at 985) ≈ java-virtual 960 (failed at 1010)")
}

// Two capacity runs are compared by their answers only: no whole search,
// no trial i against trial i.
func TestCompare_SearchesByTheirAnswers(t *testing.T) {
	base, head := analysistest.SearchRun(t), analysistest.SearchRun(t)
	head.ID = "search-2"
	c := analysis.Compare(base, head, analysis.CompareOptions{})
	if len(c.Targets) != 3 {
		t.Fatalf("%d targets compared", len(c.Targets))
	}
	for _, tc := range c.Targets {
		if len(tc.Metrics) != 1 || tc.Metrics[0].Name != "capacity" || len(tc.Stages) != 0 || len(tc.Resources) != 0 {
			t.Errorf("%s: metrics %+v, %d stages, %d resources: want the answer only", tc.Target, tc.Metrics, len(tc.Stages), len(tc.Resources))
		}
	}
	if !slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "only the searches' answers are compared") }) {
		t.Errorf("warnings %q do not say why only the answers are compared", c.Warnings)
	}
}

// A trial the search found the load generator limited says nothing of the
// target (its lag is in its latency): it is set beside no other.
func TestSearch_GeneratorBoundTrialsApart(t *testing.T) {
	run := analysistest.SearchRun(t)
	goSteps := run.Targets[0].Capacity.Steps
	if goSteps[4].Rate != 800 {
		t.Fatalf("go's fifth trial is at %g req/s, not 800", goSteps[4].Rate)
	}
	goSteps[4].GeneratorBound, goSteps[4].Pass = "scheduling lag p99 132.1 ms", false
	rep := analysis.Analyze(run, analysis.ReportOptions{})
	for _, sc := range rep.Scopes {
		if strings.HasSuffix(sc.Name, " at 800 req/s") {
			t.Errorf("scope %q sets go's generator-bound trial beside java-virtual's", sc.Name)
		}
	}
	lacksFinding(t, rep, "trials at 800 req/s")
	hasFinding(t, rep, "p99 latency, 3s trials at 750 req/s, the highest rate more than one target ran: java-platform")
	if tr := rep.Searches.Targets[0].Trials[4]; tr.Verdict != "generator-bound: scheduling lag p99 132.1 ms" || !tr.GeneratorBound || tr.Pass {
		t.Errorf("go's trial 5 judged %q (generator-bound %v, pass %v)", tr.Verdict, tr.GeneratorBound, tr.Pass)
	}
}

// A confirmation whose figures may not be the target's alone is named by
// its trial, and no error at the answers is claimed when one failed.
func TestSearch_AnswerFlagsAndErrors(t *testing.T) {
	run := analysistest.SearchRun(t)
	jp := &run.Targets[1]
	conf := jp.Capacity.Confirmations[0].Stage
	jp.Stages[conf].Flags = []bench.Flag{{Kind: "generator-bound", Reason: "scheduling lag p99 9.0 ms (limit 5 ms)"}}
	jp.Stages[conf].Stats.Successes -= 3
	rep := analysis.Analyze(run, analysis.ReportOptions{})
	hasFinding(t, rep, fmt.Sprintf("java-platform's confirmation at 970 req/s (trial %d): generator-bound (scheduling lag p99 9.0 ms (limit 5 ms))", conf+1))
	hasFinding(t, rep, fmt.Sprintf("Requests failed in the confirmations: java-platform 3 of %d.", 3*jp.Stages[conf].Stats.Requests))
	lacksFinding(t, rep, "No errors at the answers")
}

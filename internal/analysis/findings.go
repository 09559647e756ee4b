package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// Finding kinds.
const (
	findStatus     = "status"
	findThroughput = "throughput"
	findPair       = "pair"
	findBound      = "bound"
	findResources  = "resources"
	findErrors     = "errors"
	findFlag       = "flag"
	findSteady     = "steady"
)

// nearBound is how close to a ceiling, as a share of it, a measured
// throughput must be for the ceiling to be said to bind it.
const nearBound = 0.9

// findings draws short sentences from the scopes' figures, and only what
// the figures support: differences are claimed when the tests find them.
func (a *analysis) findings(scopes []*scopeData) []bench.Finding {
	out := []bench.Finding{}
	add := func(kind, format string, args ...any) {
		out = append(out, bench.Finding{Kind: kind, Text: fmt.Sprintf(format, args...)})
	}
	for _, s := range a.subjects {
		if s.info.Status != bench.TargetSucceeded {
			add(findStatus, "%s %s%s.", s.info.Label, s.info.Status, Suffix(": ", s.info.Error))
		}
	}
	if searched(a.run) {
		return append(out, a.searchFindings(scopes)...)
	}
	if len(scopes) == 0 {
		return out
	}
	whole := scopes[0]
	if s := a.warmupSentence(); s != "" {
		add(findSteady, "%s", s)
	}
	for _, d := range scopes[min(1, len(scopes)-1):] {
		for _, s := range steadySentences(d) {
			add(findSteady, "%s", s)
		}
		for _, s := range a.failedSentences(d) {
			add(findErrors, "%s", s)
		}
	}
	for _, d := range rankedScopes(scopes) {
		if r, ok := RankOf(d.out, MetricThroughput); ok {
			add(findThroughput, "Throughput, %s: %s.", d.def.name, rankSentence(r, a.minEffect))
		}
	}
	for _, p := range pairScope(scopes).out.Pairs {
		for _, pf := range p.Figures {
			if s := a.pairSentence(p, pf); s != "" {
				add(findPair, "%s", s)
			}
		}
	}
	for _, d := range scopes[1:] {
		for _, s := range a.boundSentences(d) {
			add(findBound, "%s", s)
		}
	}
	if d := busiest(scopes[1:]); d != nil {
		for _, s := range resourceSentences(d) {
			add(findResources, "%s", s)
		}
	}
	out = append(out, a.poolFindings()...)
	add(findErrors, "%s", errorSentence(whole))
	for _, d := range scopes[1:] {
		for _, res := range d.out.Results {
			for _, f := range res.Flags {
				add(findFlag, "%s, %s: %s (%s): its figures may measure something other than the target.",
					res.Label, d.def.name, f.Kind, f.Reason)
			}
		}
	}
	return out
}

// rankedScopes are the scopes whose throughput ranking is put in words:
// the whole attack when its ranks were tested, else each stage.
func rankedScopes(scopes []*scopeData) []*scopeData {
	if wholeTested(scopes[0]) || len(scopes) == 1 {
		return scopes[:1]
	}
	return scopes[1:]
}

// pairScope is the scope whose pairs are put in words: the whole attack
// when tested, else the busiest stage.
func pairScope(scopes []*scopeData) *scopeData {
	if wholeTested(scopes[0]) || len(scopes) == 1 {
		return scopes[0]
	}
	return busiest(scopes[1:])
}

// wholeTested reports whether the whole attack's differences could be
// tested: with rounds, or one stage.
func wholeTested(whole *scopeData) bool {
	for _, r := range whole.out.Ranks {
		for _, e := range r.Entries[1:] {
			if e.VsAbove != nil {
				return true
			}
		}
	}
	return false
}

// Suffix is s after sep, or nothing when s is empty.
func Suffix(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

// RankOf is a scope's ranking of the figure name, false when it has none.
func RankOf(sc bench.ReportScope, name string) (bench.Rank, bool) {
	for _, r := range sc.Ranks {
		if r.Figure == name {
			return r, true
		}
	}
	return bench.Rank{}, false
}

// rankSentence writes a rank as a chain, best first: "go 775.0 req/s >
// java-virtual 501.5 (p < 0.001, n = 10+10) ≈ ...", where ≈ marks a
// difference the run cannot show.
func rankSentence(r bench.Rank, minEffect float64) string {
	var b strings.Builder
	for i, e := range r.Entries {
		b.WriteString(RankSeparator(i, e))
		b.WriteString(e.Label + " " + units.Num(e.Value))
		if i == 0 {
			b.WriteString(" " + r.Unit)
		}
		if e.VsAbove != nil {
			b.WriteString(" (" + TestString(*e.VsAbove) + SameWhy(e, r.Entries[i-1], minEffect) + ")")
		}
	}
	return b.String()
}

// RankSeparator is what stands before the i-th entry of a rank chain: ">"
// after a difference the test shows, "≈" after one it cannot, a comma
// where there was no test.
func RankSeparator(i int, e bench.RankEntry) string {
	switch {
	case i == 0:
		return ""
	case e.VsAbove == nil:
		return ", "
	case e.Same:
		return " ≈ "
	}
	return " > "
}

// pairSentence says how A compares with B in one figure: the difference
// with its test when there is one, or that the run cannot show one. Only
// throughput and p99 are put in words; the tables have the rest.
func (a *analysis) pairSentence(p bench.Pair, pf bench.PairFigure) string {
	if pf.Figure != MetricThroughput && pf.Figure != MetricP99 {
		return ""
	}
	what := "in throughput"
	if pf.Figure == MetricP99 {
		what = "in p99 latency"
	}
	test := TestString(pf.Test) + CVWords(pf)
	values := fmt.Sprintf("%s vs %s", ValueWithUnit(pf.A, pf.Unit), ValueWithUnit(pf.B, pf.Unit))
	switch {
	case pf.Verdict != bench.VerdictNoDifference:
		return fmt.Sprintf("%s is %s than %s %s: %s (%s; %s).", p.A, betterWord(pf), p.B, what,
			changeWords(pf), values, test)
	case pf.Test.Significant && math.Abs(pf.Change) >= a.minEffect:
		return fmt.Sprintf("%s and %s differ by %.1f%% %s (%s), but the values the test rests on point the other way (%s): no claim.",
			p.A, p.B, math.Abs(pf.Change), what, values, test)
	case pf.Test.Significant:
		return fmt.Sprintf("%s and %s differ by %.1f%% %s (%s): significant (%s) but under the %g%% minimum effect.",
			p.A, p.B, math.Abs(pf.Change), what, values, test, a.minEffect)
	case pf.Figure == MetricP99:
		return "" // unremarkable: the tables show it
	}
	return fmt.Sprintf("%s and %s differ by %.1f%% %s (%s): not a difference this run can show (%s%s).",
		p.A, p.B, math.Abs(pf.Change), what, values, test, Suffix("; ", firstWarning(pf.Test)))
}

// firstWarning is why a test could not find a difference whatever the
// values, such as too few rounds ("need >= 4 samples to detect a
// difference at alpha level 0.05"), or "".
func firstWarning(s bench.Significance) string {
	if len(s.Warnings) == 0 {
		return ""
	}
	return s.Warnings[0]
}

func betterWord(pf bench.PairFigure) string {
	if pf.Verdict == bench.VerdictBetter {
		return "better"
	}
	return "worse"
}

// changeWords says a change as people do: "+45.7%" for throughput,
// "2.10× as long" for latency.
func changeWords(pf bench.PairFigure) string {
	if pf.Unit == UnitMs && pf.Ratio != 0 {
		return fmt.Sprintf("%.2f× as long", pf.Ratio)
	}
	return PositiveZero(fmt.Sprintf("%+.1f%%", pf.Change))
}

// boundSentences names the ceilings that bind a stage's subjects, and any
// measured throughput above a ceiling, which would mean a broken
// measurement.
func (a *analysis) boundSentences(d *scopeData) []string {
	var out []string
	var clientBound []string
	for _, b := range d.out.Bounds {
		switch {
		case b.Kind != bench.BoundLittle && b.Measured > b.Allowed+b.Slack:
			out = append(out, fmt.Sprintf("%s in %s measured %s req/s, above its %s bound of %s (%s; %s more from the requests in flight when it began): check the run.",
				b.Label, d.def.name, units.Num(b.Measured), b.Kind, units.Num(b.Allowed), b.Basis, units.Num(b.Slack)))
		case !b.Binds || b.Measured < nearBound*b.Allowed:
		case b.Kind == bench.BoundPool:
			out = append(out, fmt.Sprintf("%s is bound by its %s-thread pool in %s: %s req/s allowed (%s), %s measured.",
				b.Label, poolThreads(b.Basis), d.def.name, units.Num(b.Allowed), b.Basis, units.Num(b.Measured)))
		case b.Kind == bench.BoundClients:
			clientBound = append(clientBound, fmt.Sprintf("%s %s", b.Label, units.Num(b.Measured)))
		}
	}
	if len(clientBound) > 0 {
		allowed := clientCeiling(d.out.Bounds)
		slack := ""
		if slices.ContainsFunc(d.out.Bounds, func(b bench.Bound) bool { return b.Binds && b.Kind == bench.BoundClients && b.Measured > b.Allowed }) {
			slack = fmt.Sprintf(", %s more from the requests in flight when it began", units.Num(allowed.Slack))
		}
		out = append(out, fmt.Sprintf("In %s only the clients bound %s req/s (%s allowed%s: %s).",
			d.def.name, strings.Join(clientBound, ", "), units.Num(allowed.Allowed), slack, allowed.Basis))
	}
	return out
}

// poolThreads reads the thread count back from a pool bound's basis.
func poolThreads(basis string) string {
	n, _, _ := strings.Cut(basis, " ")
	return n
}

func clientCeiling(bounds []bench.Bound) bench.Bound {
	for _, b := range bounds {
		if b.Kind == bench.BoundClients && b.Binds {
			return b
		}
	}
	return bench.Bound{}
}

// busiest is the stage scope with the highest load (the last of equals).
func busiest(stages []*scopeData) *scopeData {
	var best *scopeData
	for _, d := range stages {
		if best == nil || d.def.level() >= best.def.level() {
			best = d
		}
	}
	return best
}

// resourceSentences say, at the highest load, who used the most working
// set relative to the least, and how many threads of each kind each ran.
// With one round these are single measurements: ratios, not claims.
func resourceSentences(d *scopeData) []string {
	var out []string
	var most, least *bench.SubjectResult
	var threads []string
	for i := range d.out.Results {
		res := &d.out.Results[i]
		if res.Resources == nil {
			continue
		}
		if ws, ok := res.Resources.MemoryMiB[bench.MemoryWorkingSet]; ok && ws.Value > 0 {
			if most == nil || ws.Value > most.Resources.MemoryMiB[bench.MemoryWorkingSet].Value {
				most = res
			}
			if least == nil || ws.Value < least.Resources.MemoryMiB[bench.MemoryWorkingSet].Value {
				least = res
			}
		}
		if t := threadWords(res.Resources.Threads); t != "" {
			threads = append(threads, res.Label+" "+t)
		}
	}
	where := "at " + strings.TrimPrefix(strings.TrimPrefix(d.out.Load, "closed, "), "open, ")
	if d.def.ramp {
		where = "in " + d.def.name
	}
	if most != nil && least != nil && most != least {
		hi, lo := most.Resources.MemoryMiB[bench.MemoryWorkingSet].Value, least.Resources.MemoryMiB[bench.MemoryWorkingSet].Value
		out = append(out, fmt.Sprintf("%s used %.1f× the working set of %s %s (peak %s vs %s MiB).",
			most.Label, hi/lo, least.Label, where, units.Num(hi), units.Num(lo)))
	}
	if len(threads) > 0 {
		out = append(out, fmt.Sprintf("Peak threads %s: %s.", where, strings.Join(threads, "; ")))
	}
	return out
}

// threadWords lists a subject's peak threads by kind: "217 platform
// threads", "20 platform threads, 400 virtual threads".
func threadWords(threads map[string]bench.Estimate) string {
	var parts []string
	for _, kind := range OrderedKinds(threads, bench.ThreadKinds) {
		if e := threads[kind]; e.Value > 0 {
			parts = append(parts, fmt.Sprintf("%.0f %s", e.Value, bench.ThreadLabel(kind)))
		}
	}
	return strings.Join(parts, ", ")
}

// errorSentence says whether anything failed over the whole attack.
func errorSentence(whole *scopeData) string {
	var failed []string
	for _, res := range whole.out.Results {
		if res.Figures.Errors > 0 {
			failed = append(failed, fmt.Sprintf("%s %.2f%% (%d)", res.Label, res.Figures.ErrorRate.Value, res.Figures.Errors))
		}
	}
	if len(failed) == 0 {
		return "No errors: every request to every target succeeded."
	}
	return "Requests failed: " + strings.Join(failed, ", ") + "."
}

// steadySentences say which subjects of a stage had no steady part, how
// fast they still moved, that no verdict is drawn from them, and what to
// change.
func steadySentences(d *scopeData) []string {
	var out []string
	for i, res := range d.out.Results {
		var trends []string
		unsteady := map[int]bool{}
		for _, sp := range res.Steady {
			if !sp.Steady {
				trends = append(trends, TrendWords(sp, len(res.Steady) > 1))
				unsteady[sp.Round] = true
			}
		}
		if len(trends) > 0 {
			out = append(out, fmt.Sprintf("%s is not steady in %s (%s): no ranking or pair verdict is drawn from it; %s.",
				res.Label, d.def.name, strings.Join(trends, "; "), warmupAdvice(d.subs[i], unsteady)))
		}
	}
	return out
}

// failedSentences say which subjects of a scope failed more of their
// requests than a verdict allows, and that none is drawn from them.
func (a *analysis) failedSentences(d *scopeData) []string {
	var out []string
	for _, ss := range d.subs {
		if len(ss.failed) == 0 {
			continue
		}
		shares := make([]string, len(ss.failed))
		for i, f := range ss.failed {
			shares[i] = units.Percent(f)
		}
		out = append(out, fmt.Sprintf("%s failed %s of its requests in %s, more than the %s a verdict allows: no ranking or pair verdict is drawn from it.",
			ss.s.info.Label, strings.Join(shares, ", "), d.def.name, units.Percent(a.maxErrors)))
	}
	return out
}

// warmupAdvice says what to change for a stage that is not steady, from
// how the subject's warm-up went: a warm-up until steady that hit its
// maximum names the maximum and the test it still failed; one that settled
// names its window, the test it passed being shorter than the stage's; a
// fixed warm-up names its length. Only the warm-ups of the rounds whose
// stage was not steady (unsteady) are read: another round's warm-up says
// nothing of these.
func warmupAdvice(ss *scopeSubject, unsteady map[int]bool) string {
	w := ss.s.spec.Warmup
	var settled *bench.WarmupSteady
	for _, t := range ss.rounds {
		if !unsteady[t.Round] {
			continue
		}
		ws := t.WarmupSteady
		switch {
		case ws == nil:
		case !ws.Steady:
			return fmt.Sprintf("its warm-up hit its %s maximum with %s: raise the maximum (--warmup-max, warmup.maxDuration) "+
				"or lengthen the stage", ws.MaxDuration, missedWords(*ws))
		case settled == nil:
			settled = ws
		}
	}
	switch {
	case settled != nil:
		return fmt.Sprintf("its warm-up settled after %.1f s over a %s window, shorter than the stage: "+
			"lengthen the window (warmup.window) or the stage", settled.Seconds, warmupWindow(*settled, w))
	case w.Disabled:
		return "warm it up (the warm-up was skipped) or lengthen the stage"
	case !w.UntilSteady:
		return fmt.Sprintf("its fixed %s warm-up was too short: warm it up until steady (the default without --warmup) "+
			"or lengthen the stage", w.Duration)
	}
	return "warm it up longer or lengthen the stage"
}

// missedWords says which tests the last window of a warm-up until steady
// failed: "throughput still +0.8 %/s", "the JIT compiled 1.2 s in its last
// 10s", "a transient at an end of its last 10s".
func missedWords(ws bench.WarmupSteady) string {
	window := warmupWindow(ws, bench.Warmup{})
	var missed []string
	if ws.Figure != "" {
		missed = append(missed, fmt.Sprintf("%s still %s %%/s", ws.Figure, PositiveZero(fmt.Sprintf("%+.1f", ws.Trend))))
	}
	if ws.Transient {
		missed = append(missed, "a transient at an end of its last "+window)
	}
	switch {
	case ws.JITBusy && ws.JITMsWindow != nil:
		missed = append(missed, fmt.Sprintf("the JIT compiled %.1f s in its last %s", *ws.JITMsWindow/1000, jitWindow(ws, window)))
	case ws.JITBusy:
		missed = append(missed, "the JIT's compilation time not read over its last "+window)
	}
	if len(missed) == 0 {
		return "its last window not steady"
	}
	return strings.Join(missed, " and ")
}

// jitWindow names the stretch a warm-up's JIT time was read over: longer
// than the window after a compilation longer than it.
func jitWindow(ws bench.WarmupSteady, window string) string {
	if ws.JITWindow > 0 {
		return ws.JITWindow.String()
	}
	return window
}

// warmupWindow names the window a warm-up until steady was judged over: its
// own, or the spec's for runs stored before the outcome kept it.
func warmupWindow(ws bench.WarmupSteady, w bench.Warmup) string {
	switch {
	case ws.Window > 0:
		return ws.Window.String()
	case w.Window > 0:
		return w.Window.String()
	}
	return "window"
}

// TrendWords says how a part that is not steady moves: "throughput
// +1.6 %/s over the 5 s kept", with its round when there are several.
func TrendWords(sp bench.SteadyPart, rounds bool) string {
	s := fmt.Sprintf("%s %s %%/s over the %d s kept", sp.Figure, PositiveZero(fmt.Sprintf("%+.1f", sp.Trend)), sp.Seconds-sp.Cut-sp.CutEnd)
	if rounds {
		s = fmt.Sprintf("round %d: %s", sp.Round+1, s)
	}
	return s
}

// CVWords is the run-to-run spread printed with a verdict over rounds:
// "; run-to-run CV 1.2% and 3.4%" (A's, then B's), or "" with one round.
func CVWords(pf bench.PairFigure) string {
	if pf.CVA == nil || pf.CVB == nil {
		return ""
	}
	return fmt.Sprintf("; run-to-run CV %.1f%% and %.1f%%", *pf.CVA, *pf.CVB)
}

// warmupSentence says how long each subject's warm-up until steady took,
// round by round, with the JVM's JIT time and any maximum hit: "Warm-up
// until steady: go 10.2 s; java-virtual 18.3 s (JIT 3.1 s)."
func (a *analysis) warmupSentence() string {
	var parts []string
	for _, s := range a.subjects {
		var rounds []string
		for _, t := range s.rounds {
			if ws := t.WarmupSteady; ws != nil {
				rounds = append(rounds, warmupWords(*ws))
			}
		}
		if len(rounds) > 0 {
			parts = append(parts, s.info.Label+" "+strings.Join(rounds, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Warm-up until steady: " + strings.Join(parts, "; ") + "."
}

func warmupWords(ws bench.WarmupSteady) string {
	s := fmt.Sprintf("%.1f s", ws.Seconds)
	if ws.JITMs != nil {
		s += fmt.Sprintf(" (JIT %.1f s)", *ws.JITMs/1000)
	}
	if !ws.Steady {
		s += fmt.Sprintf(" (maximum hit, %s)", missedWords(ws))
	}
	return s
}

// SameWhy says why an entry is ranked the same as the one above although
// its test is significant: the difference is under the minimum effect, or
// the values the test rests on order them the other way.
func SameWhy(e, above bench.RankEntry, minEffect float64) string {
	if !e.Same || !e.VsAbove.Significant {
		return ""
	}
	if math.Abs(relativeChange(above.Value, e.Value)) < minEffect {
		return fmt.Sprintf(", under the %g%% minimum effect", minEffect)
	}
	return ", pointing the other way"
}

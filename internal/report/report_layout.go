package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// A report is laid out once, as sections of blocks, and the layout is
// written as aligned text, GitHub markdown or HTML: the three show the same
// figures in the same order.

// section is one part of a report: the header, the findings, a scope.
type section struct {
	Title  string
	ID     string // for HTML anchors
	Blocks []block
}

// block is a titled table, key-value list or list of lines.
type block struct {
	Title  string
	KV     [][2]string
	Header []string
	Rows   [][]string
	Right  map[int]bool // columns of numbers
	Color  []int        // per row: the subject's colour index, -1 for none (HTML swatches)
	Lines  []string
	// Figures are pictures only HTML draws (flame graphs).
	Figures []figure
}

// layoutReport lays out the whole report.
func layoutReport(rep bench.Report) []section {
	sections := append([]section{headerSection(rep), findingsSection(rep)}, capacitySections(rep)...)
	sections = append(sections, axesSections(rep)...)
	sections = append(sections, virtualSections(rep)...)
	sections = append(sections, whySections(rep)...)
	colors := subjectColors(rep)
	for i, sc := range rep.Scopes {
		sections = append(sections, scopeSection(sc, colors, fmt.Sprintf("scope-%d", i), rep.MinEffect))
	}
	if len(rep.Notes) > 0 {
		sections = append(sections, section{Title: "Notes", ID: "notes", Blocks: []block{{Lines: rep.Notes}}})
	}
	return sections
}

// layoutSummary lays out what `runs show` opens with: the findings and the
// whole attack's figures, ranks and pairs (a capacity run has no whole).
func layoutSummary(rep bench.Report) []section {
	sections := append([]section{findingsSection(rep)}, capacitySections(rep)...)
	sections = append(sections, axesSections(rep)...)
	if len(rep.Scopes) > 0 && rep.Searches == nil {
		whole := scopeSection(rep.Scopes[0], subjectColors(rep), "scope-0", rep.MinEffect)
		var kept []block
		for _, b := range whole.Blocks {
			if b.Title != "resources (peaks)" && b.Title != "per request" {
				kept = append(kept, b)
			}
		}
		whole.Blocks = kept
		sections = append(sections, whole)
	}
	return sections
}

func subjectColors(rep bench.Report) map[string]int {
	colors := map[string]int{}
	for i, s := range rep.Subjects {
		colors[s.Label] = i
	}
	return colors
}

func headerSection(rep bench.Report) section {
	kv := [][2]string{
		{"run", rep.Run.ID + analysis.Suffix(" ", quoteName(rep.Run.Name))},
		{"status", string(rep.Run.Status)},
		{"created", shortTime(rep.Run.CreatedAt)},
		{"profile", rep.Profile},
		{"workload", rep.Workload},
		{"limits", rep.Limits},
	}
	kv = append(kv, hostLines(rep.Environment)...)
	kv = append(kv, [][2]string{
		{"rounds", fmt.Sprint(rep.Rounds)},
		{"statistics", fmt.Sprintf("%s; %.0f%% intervals, alpha %g, minimum effect %g%%", rep.Method, rep.Confidence*100, rep.Alpha, rep.MinEffect)},
		{"latency", rep.LatencyNote},
	}...)
	return section{Title: "Report of run " + rep.Run.ID, ID: "run", Blocks: []block{{KV: kv}, targetsBlock(rep.Subjects)}}
}

// targetsBlock lists the subjects, with the engine each ran on when any
// ran elsewhere than here.
func targetsBlock(subjects []bench.ReportSubject) block {
	engines := showEngines(subjects)
	targets := block{Title: "targets", Header: []string{"TARGET", "RUNS", "RUNTIME", "ROUNDS", "STATUS"}, Right: map[int]bool{3: true}}
	if engines {
		targets.Header = []string{"TARGET", "RUNS", "ENGINE", "RUNTIME", "ROUNDS", "STATUS"}
		targets.Right = map[int]bool{4: true}
	}
	for i, s := range subjects {
		row := []string{s.Label, s.Target, units.OrDash(s.Runtime), fmt.Sprint(s.Rounds), string(s.Status) + analysis.Suffix(": ", s.Error)}
		if engines {
			row = slices.Insert(row, 2, units.OrDash(s.Engine))
		}
		targets.Rows = append(targets.Rows, row)
		targets.Color = append(targets.Color, i)
	}
	return targets
}

func quoteName(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf("(%s)", name)
}

func environmentLine(env bench.Environment) string {
	if !env.Recorded() {
		return "not recorded"
	}
	return fmt.Sprintf("%s, %s x %s, kernel %s, docker %s, cgroup %s; load on CPUs %s, targets on %s",
		units.OrDash(env.Host), units.OrDash(env.CPUModel), units.OrDash(analysis.CountString(env.CPUs)), units.OrDash(env.Kernel),
		units.OrDash(env.DockerVersion), units.OrDash(env.CgroupVersion), units.OrDash(env.LoadCPUSet), units.OrDash(env.TargetCPUSet))
}

func findingsSection(rep bench.Report) section {
	lines := make([]string, len(rep.Findings))
	for i, f := range rep.Findings {
		lines[i] = f.Text
	}
	if len(lines) == 0 {
		lines = []string{"nothing measured"}
	}
	return section{Title: "Findings", ID: "findings", Blocks: []block{{Lines: lines}}}
}

// scopeSection lays out one scope: throughput and errors, latency, per
// request, resources, ranks, pairs, bounds, flags.
func scopeSection(sc bench.ReportScope, colors map[string]int, id string, minEffect float64) section {
	title := sc.Name + " — " + sc.Load
	if sc.Duration > 0 {
		title += ", " + sc.Duration.String()
	}
	s := section{Title: title, ID: id}
	add := func(b block) {
		if len(b.Rows) > 0 || len(b.Lines) > 0 {
			s.Blocks = append(s.Blocks, b)
		}
	}
	add(throughputBlock(sc, colors))
	add(latencyBlock(sc, colors))
	add(requestBlock(sc, colors))
	add(resourceBlock(sc, colors))
	add(rankBlock(sc, minEffect))
	add(pairBlock(sc, minEffect))
	add(boundBlock(sc, colors))
	add(flagBlock(sc))
	add(steadyBlock(sc))
	return s
}

// steadyBlock states, per subject, the part of a hold stage its figures
// come from: the transient cut, or that it never settled.
func steadyBlock(sc bench.ReportScope) block {
	b := block{Title: "steady part (figures from the seconds kept)"}
	if !analysis.AnyCut(sc) {
		if len(sc.Results) > 0 && len(sc.Results[0].Steady) > 0 {
			b.Lines = []string{"every target steady from its first second: nothing cut"}
		}
		return b
	}
	for _, r := range sc.Results {
		var parts []string
		for _, sp := range r.Steady {
			parts = append(parts, steadyWords(sp, len(r.Steady) > 1))
		}
		if len(parts) > 0 {
			b.Lines = append(b.Lines, r.Label+": "+strings.Join(parts, "; "))
		}
	}
	return b
}

// steadyWords says what one round kept: "all 10 s", "first 3 s cut, 7 s
// kept", "first 1 s and last 1 s cut, 13 s kept", "not steady: throughput
// +1.6 %/s over the 5 s kept".
func steadyWords(sp bench.SteadyPart, rounds bool) string {
	var s string
	switch {
	case !sp.Steady:
		s = "not steady: " + analysis.TrendWords(sp, false)
		if cut := cutWords(sp); cut != "" {
			s += " (" + cut + ")"
		}
	case sp.Cut == 0 && sp.CutEnd == 0:
		s = fmt.Sprintf("all %d s", sp.Seconds)
	default:
		s = fmt.Sprintf("%s, %d s kept", cutWords(sp), sp.Seconds-sp.Cut-sp.CutEnd)
	}
	if rounds {
		s = fmt.Sprintf("round %d %s", sp.Round+1, s)
	}
	return s
}

// cutWords says which ends of a round were cut: "first 3 s cut", "last
// 1 s cut", "first 1 s and last 2 s cut"; empty when neither was.
func cutWords(sp bench.SteadyPart) string {
	switch {
	case sp.Cut > 0 && sp.CutEnd > 0:
		return fmt.Sprintf("first %d s and last %d s cut", sp.Cut, sp.CutEnd)
	case sp.Cut > 0:
		return fmt.Sprintf("first %d s cut", sp.Cut)
	case sp.CutEnd > 0:
		return fmt.Sprintf("last %d s cut", sp.CutEnd)
	}
	return ""
}

func throughputBlock(sc bench.ReportScope, colors map[string]int) block {
	b := block{Title: "throughput and errors",
		Header: []string{"TARGET", "REQUESTS", "COMPLETED", "ERRORS", "ERROR RATE %", "THROUGHPUT req/s", "RELATIVE", "IN MiB", "OUT MiB"},
		Right:  rightFrom(1)}
	relative := relativeOf(sc, analysis.MetricThroughput)
	for _, r := range sc.Results {
		f := r.Figures
		b.Rows = append(b.Rows, []string{r.Label, fmt.Sprint(f.Requests), completedCell(f), fmt.Sprint(f.Errors),
			estimateText(f.ErrorRate, analysis.UnitPercent), estimateText(f.Throughput, analysis.UnitReqPerSec), relative[r.Label],
			mib(f.BytesIn), mib(f.BytesOut)})
		b.Color = append(b.Color, colors[r.Label])
	}
	return b
}

func latencyBlock(sc bench.ReportScope, colors map[string]int) block {
	b := block{Title: "latency (ms)", Header: latencyHeader, Right: rightFrom(1)}
	for _, r := range sc.Results {
		b.Rows = append(b.Rows, append([]string{r.Label}, latencyCells(r.Figures.Latency)...))
		b.Color = append(b.Color, colors[r.Label])
	}
	return b
}

var latencyHeader = []string{"TARGET", "MIN", "MEAN", "P50", "P90", "P95", "P99", "P99.9", "MAX"}

func latencyCells(l bench.LatencyEstimates) []string {
	cells := []string{}
	for _, e := range []bench.Estimate{l.Min, l.Mean, l.P50, l.P90, l.P95, l.P99, l.P999, l.Max} {
		cells = append(cells, estimateText(e, analysis.UnitMs))
	}
	return cells
}

// requestBlock lays out the figures of each request of a mixed workload,
// request by request.
func requestBlock(sc bench.ReportScope, colors map[string]int) block {
	b := block{Title: "per request",
		Header: []string{"REQUEST", "TARGET", "REQUESTS", "ERRORS", "THROUGHPUT req/s", "MEAN ms", "P50 ms", "P90 ms", "P99 ms", "MAX ms"},
		Right:  rightFrom(2)}
	for _, name := range requestNames(sc) {
		for _, r := range sc.Results {
			for _, rf := range r.Requests {
				if rf.Name != name {
					continue
				}
				f := rf.Figures
				b.Rows = append(b.Rows, []string{name, r.Label, fmt.Sprint(f.Requests), fmt.Sprint(f.Errors),
					estimateText(f.Throughput, analysis.UnitReqPerSec), estimateText(f.Latency.Mean, analysis.UnitMs),
					estimateText(f.Latency.P50, analysis.UnitMs), estimateText(f.Latency.P90, analysis.UnitMs),
					estimateText(f.Latency.P99, analysis.UnitMs), estimateText(f.Latency.Max, analysis.UnitMs)})
				b.Color = append(b.Color, colors[r.Label])
			}
		}
	}
	return b
}

func requestNames(sc bench.ReportScope) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range sc.Results {
		for _, rf := range r.Requests {
			if !seen[rf.Name] {
				seen[rf.Name] = true
				names = append(names, rf.Name)
			}
		}
	}
	return names
}

// resourceBlock lays out peaks per thread kind and memory figure, CPU and
// GC: a column for every kind any subject reported.
func resourceBlock(sc bench.ReportScope, colors map[string]int) block {
	threads, memory := map[string]bool{}, map[string]bool{}
	for _, r := range sc.Results {
		if r.Resources == nil {
			continue
		}
		for k := range r.Resources.Threads {
			threads[k] = true
		}
		for k := range r.Resources.MemoryMiB {
			memory[k] = true
		}
	}
	threadKinds, memoryKinds := analysis.OrderedKinds(threads, bench.ThreadKinds), analysis.OrderedKinds(memory, bench.MemoryKinds)
	b := block{Title: "resources (peaks)", Header: []string{"TARGET"}, Right: rightFrom(1)}
	for _, k := range threadKinds {
		b.Header = append(b.Header, strings.ToUpper(bench.ThreadLabel(k)))
	}
	for _, k := range memoryKinds {
		b.Header = append(b.Header, strings.ToUpper(analysis.MemoryLabel(k))+" MiB")
	}
	b.Header = append(b.Header, "CPU s / 1k req", "GC PAUSES", "GC TIME s")
	for _, r := range sc.Results {
		if r.Resources == nil {
			continue
		}
		row := []string{r.Label}
		for _, k := range threadKinds {
			row = append(row, mapCell(r.Resources.Threads, k, analysis.UnitThreads))
		}
		for _, k := range memoryKinds {
			row = append(row, mapCell(r.Resources.MemoryMiB, k, analysis.UnitMiB))
		}
		row = append(row, optionalCell(r.Resources.CPUSecondsPer1k, analysis.UnitSeconds), optionalCell(r.Resources.GCPauses, analysis.UnitPauses),
			optionalCell(r.Resources.GCPauseSeconds, analysis.UnitSeconds))
		b.Rows = append(b.Rows, row)
		b.Color = append(b.Color, colors[r.Label])
	}
	return b
}

func mapCell(m map[string]bench.Estimate, key, unit string) string {
	e, ok := m[key]
	if !ok || e.Value == 0 {
		return "-"
	}
	return estimateText(e, unit)
}

func optionalCell(e *bench.Estimate, unit string) string {
	if e == nil {
		return "-"
	}
	return estimateText(*e, unit)
}

// rankBlock writes each rank as a chain, best first, with each entry's
// value relative to the best and its test against the entry above.
func rankBlock(sc bench.ReportScope, minEffect float64) block {
	b := block{Title: "ranks (best first; > differs from the one before, ≈ does not, a comma was not tested)"}
	for _, r := range sc.Ranks {
		b.Lines = append(b.Lines, fmt.Sprintf("%s: %s", figureName(r.Figure), rankChain(r, minEffect)))
	}
	return b
}

// rankChain is rankSentence with each entry's value relative to the best.
func rankChain(r bench.Rank, minEffect float64) string {
	var b strings.Builder
	for i, e := range r.Entries {
		b.WriteString(analysis.RankSeparator(i, e))
		b.WriteString(e.Label + " " + analysis.ValueWithUnit(e.Value, r.Unit))
		var notes []string
		if i > 0 && e.Relative != 0 {
			notes = append(notes, relativeText(e.Relative, r.HigherIsBetter))
		}
		if e.VsAbove != nil {
			notes = append(notes, analysis.TestString(*e.VsAbove)+analysis.SameWhy(e, r.Entries[i-1], minEffect))
		}
		if len(notes) > 0 {
			b.WriteString(" (" + strings.Join(notes, "; ") + ")")
		}
	}
	return b.String()
}

// relativeText is a value relative to the best: a share for figures where
// higher is better ("68.1%"), a multiple for the others ("2.13×").
func relativeText(rel float64, higherIsBetter bool) string {
	if higherIsBetter {
		return fmt.Sprintf("%.1f%%", rel*100)
	}
	return fmt.Sprintf("%.2f×", rel)
}

// relativeOf returns each label's value relative to the best in a ranked
// figure, as text.
func relativeOf(sc bench.ReportScope, name string) map[string]string {
	out := map[string]string{}
	if r, ok := analysis.RankOf(sc, name); ok {
		for _, e := range r.Entries {
			out[e.Label] = relativeText(e.Relative, r.HigherIsBetter)
		}
	}
	for _, res := range sc.Results {
		if out[res.Label] == "" {
			out[res.Label] = "-"
		}
	}
	return out
}

func pairBlock(sc bench.ReportScope, minEffect float64) block {
	b := block{Title: "pairs", Header: []string{"PAIR", "FIGURE", "A", "B", "CHANGE", "VERDICT"}, Right: map[int]bool{2: true, 3: true, 4: true}}
	for _, p := range sc.Pairs {
		for i, pf := range p.Figures {
			pair := ""
			if i == 0 {
				pair = p.A + " vs " + p.B + analysis.Suffix(", along the ", p.Axis)
			}
			b.Rows = append(b.Rows, []string{pair, figureName(pf.Figure) + " (" + pf.Unit + ")", analysis.Value(pf.A, pf.Unit), analysis.Value(pf.B, pf.Unit),
				analysis.PositiveZero(fmt.Sprintf("%+.1f%%", pf.Change)), verdictText(pf, minEffect, untestedIn(sc))})
			b.Color = append(b.Color, -1)
		}
	}
	return b
}

// verdictText writes a verdict with the test behind it: "worse (p < 0.001,
// n = 10+10)", "no significant difference (p = 0.43, n = 3+3)"; and why a
// significant test is no verdict: under the minimum effect, or pointing
// the other way from the figures.
func verdictText(pf bench.PairFigure, minEffect float64, untested string) string {
	test := analysis.TestString(pf.Test) + analysis.CVWords(pf)
	switch {
	case !analysis.Tested(pf.Test):
		return "not tested (" + untested + ")"
	case pf.Verdict != bench.VerdictNoDifference || !pf.Test.Significant:
		return pf.Verdict + " (" + test + ")"
	case math.Abs(pf.Change) < minEffect:
		return fmt.Sprintf("%s (%s; under the %g%% minimum effect)", pf.Verdict, test, minEffect)
	}
	return "no claim (" + test + ", but pointing the other way)"
}

// untestedWhy is why a figure has no test: with one round, a whole attack
// over stages of different loads is no sample of one thing.
const untestedWhy = "one round over several loads; see the stages"

func boundBlock(sc bench.ReportScope, colors map[string]int) block {
	b := block{Title: "bounds (req/s; the lower ceiling binds)", Header: []string{"TARGET", "BOUND", "ALLOWED", "MEASURED", "BINDS", "BASIS"},
		Right: map[int]bool{2: true, 3: true}}
	for _, bd := range sc.Bounds {
		binds := ""
		if bd.Binds {
			binds = "binds"
		}
		b.Rows = append(b.Rows, []string{bd.Label, boundName(bd.Kind), units.Num(bd.Allowed), units.Num(bd.Measured), binds, bd.Basis})
		b.Color = append(b.Color, colors[bd.Label])
	}
	return b
}

func boundName(kind string) string {
	switch kind {
	case bench.BoundLittle:
		return "Little's law"
	case bench.BoundClients:
		return "clients"
	case bench.BoundPool:
		return "thread pool"
	}
	return kind
}

func flagBlock(sc bench.ReportScope) block {
	b := block{Title: "flags"}
	for _, r := range sc.Results {
		for _, f := range r.Flags {
			b.Lines = append(b.Lines, fmt.Sprintf("%s: %s: %s", r.Label, f.Kind, f.Reason))
		}
	}
	return b
}

// figureName names a figure for people.
func figureName(name string) string {
	if label, ok := figureLabels[name]; ok {
		return label
	}
	return name
}

// estimateText writes a figure with its interval: "501.5 ±110.2" for a
// within-run interval (the figure ± the half-width), "501.5 (480.2..520.3)"
// for an interval over rounds.
func estimateText(e bench.Estimate, unit string) string {
	v := analysis.Value(e.Value, unit)
	if e.CI == nil {
		return v
	}
	if e.CI.Method == bench.IntervalWithinRun {
		return v + " ±" + analysis.Value(e.CI.Hi-e.Value, unit)
	}
	return fmt.Sprintf("%s (%s..%s)", v, analysis.Value(e.CI.Lo, unit), analysis.Value(e.CI.Hi, unit))
}

// completedCell is the completed requests, or "-" for a run stored before
// completions were counted (successes without completions).
func completedCell(f bench.Figures) string {
	if f.Completed == 0 && f.Requests > f.Errors {
		return "-"
	}
	return fmt.Sprint(f.Completed)
}

func mib(bytes int64) string {
	return analysis.Value(float64(bytes)/analysis.BytesPerMiB, analysis.UnitMiB)
}

// rightFrom marks every column from first on as numbers.
func rightFrom(first int) map[int]bool {
	right := map[int]bool{}
	for i := first; i < 16; i++ {
		right[i] = true
	}
	return right
}

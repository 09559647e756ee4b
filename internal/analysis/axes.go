package analysis

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// A target's variants sit on its axes: a service of one's own on its
// variants (its thread models), its JDKs and axes of its own; the built-in
// Java targets on their thread model (java-platform, java-virtual) and
// their JDK. Their starts record where ("axis.jdk": "21"), and a report
// pairs every two variants one axis apart, lays them out in a matrix of
// two axes, and says which axis moved the throughput most.

// findAxes is the kind of the findings about a target's axes.
const findAxes = "axes"

// javaFamily is the target the built-in Java targets are variants of: one
// jar in two thread models.
const javaFamily = "java"

// settingAxisPrefix starts the settings a start records a variant's
// axis values under.
const settingAxisPrefix = "axis."

// position is where a subject sits among its target's variants.
type position struct {
	family string
	values map[string]string // axis -> value
}

// positionOf reads a subject's position from what its first measured
// round recorded, false for a subject on no axis.
func positionOf(s *subject) (position, bool) {
	if len(s.rounds) == 0 {
		return position{}, false
	}
	values := map[string]string{}
	for k, v := range s.rounds[0].Settings {
		if axis, ok := strings.CutPrefix(k, settingAxisPrefix); ok && v != "" {
			values[axis] = v
		}
	}
	family := s.targetName()
	if b := bench.Builtin(s.info.Target); b.Runtime == bench.RuntimeJava {
		family, values[bench.VariantOwn] = javaFamily, b.ThreadModel
	}
	return position{family: family, values: values}, len(values) > 0
}

// key identifies a position within its family.
func (p position) key() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(p.values)) {
		parts = append(parts, k+"="+p.values[k])
	}
	return strings.Join(parts, ",")
}

// family is the subjects of one target's variants in a scope, one per
// position (two at one position, two cases say, are left out: which to
// pair would be a guess).
type family struct {
	name   string
	subs   []*scopeSubject
	pos    []position
	axes   []string            // the axes its subjects take two values or more of, in order
	values map[string][]string // each axis's values, in the order the subjects run
}

// familiesOf groups a scope's subjects by target, in the order they run.
func familiesOf(subs []*scopeSubject) []*family {
	var out []*family
	byName := map[string]*family{}
	for _, ss := range subs {
		p, ok := positionOf(ss.s)
		if !ok {
			continue
		}
		f := byName[p.family]
		if f == nil {
			f = &family{name: p.family, values: map[string][]string{}}
			byName[p.family] = f
			out = append(out, f)
		}
		f.subs, f.pos = append(f.subs, ss), append(f.pos, p)
	}
	for _, f := range out {
		f.dropShared()
		f.findAxes()
	}
	return out
}

// dropShared leaves out the subjects that share a position.
func (f *family) dropShared() {
	count := map[string]int{}
	for _, p := range f.pos {
		count[p.key()]++
	}
	var subs []*scopeSubject
	var pos []position
	for i, p := range f.pos {
		if count[p.key()] == 1 {
			subs, pos = append(subs, f.subs[i]), append(pos, p)
		}
	}
	f.subs, f.pos = subs, pos
}

// findAxes lists the axes the family's subjects vary along: its variants
// first, then the JDK, then the others by name.
func (f *family) findAxes() {
	for _, p := range f.pos {
		for axis, v := range p.values {
			if !slices.Contains(f.values[axis], v) {
				f.values[axis] = append(f.values[axis], v)
			}
		}
	}
	for axis, vs := range f.values {
		if len(vs) > 1 {
			f.axes = append(f.axes, axis)
		}
	}
	slices.SortFunc(f.axes, func(a, b string) int { return cmp.Compare(axisOrder(a), axisOrder(b)) })
}

func axisOrder(axis string) string {
	switch axis {
	case bench.VariantOwn:
		return "0"
	case bench.AxisJDK:
		return "1"
	case bench.AxisSpringBoot:
		return "2"
	}
	return "3" + axis
}

// base is the value of an axis the others are paired with: platform
// threads, the oldest JDK or Spring Boot line, else the first value run.
func (f *family) base(axis string) string {
	vs := f.values[axis]
	switch {
	case axis == bench.VariantOwn && slices.Contains(vs, bench.ThreadModelPlatform):
		return bench.ThreadModelPlatform
	case axis == bench.AxisJDK:
		return slices.MinFunc(vs, func(a, b string) int { return cmp.Compare(atoi(a), atoi(b)) })
	case axis == bench.AxisSpringBoot:
		return slices.MinFunc(vs, compareVersions)
	}
	return vs[0]
}

// compareVersions orders dotted versions ("3.5" before "4.1", "3.10"
// after "3.9").
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range min(len(as), len(bs)) {
		if c := cmp.Compare(atoi(as[i]), atoi(bs[i])); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// axisPair is two subjects one axis apart: a in another value than b's,
// the base.
type axisPair struct{ a, b int }

// along pairs each subject off the axis's base with the subject at the
// base and every other axis alike.
func (f *family) along(axis string) []axisPair {
	base := f.base(axis)
	index := map[string]int{}
	for i, p := range f.pos {
		index[p.key()] = i
	}
	var out []axisPair
	for i, p := range f.pos {
		if p.values[axis] == base || p.values[axis] == "" {
			continue
		}
		want := position{values: maps.Clone(p.values)}
		want.values[axis] = base
		if j, ok := index[want.key()]; ok {
			out = append(out, axisPair{a: i, b: j})
		}
	}
	return out
}

// axisLabel names an axis for people: the variants of a service that are
// its thread models are its "thread model".
func (f *family) axisLabel(axis string) string {
	switch axis {
	case bench.VariantOwn:
		if !slices.ContainsFunc(f.values[axis], func(v string) bool { return checkModelName(v) != nil }) {
			return "thread model"
		}
		return "variant"
	case bench.AxisJDK:
		return "JDK"
	case bench.AxisSpringBoot:
		return "Spring Boot line"
	}
	return axis
}

func checkModelName(v string) error {
	if slices.Contains(bench.ThreadModels, v) {
		return nil
	}
	return fmt.Errorf("not a thread model: %s", v)
}

// displayName names the family in sentences and matrices.
func (f *family) displayName() string {
	if f.name == javaFamily {
		return "the built-in Java targets"
	}
	return f.name
}

// others writes a position's values on every axis but one, as variant
// names write them: "virtual, pool=t200", "jdk=21".
func (f *family) others(p position, but string) string {
	var parts []string
	for _, axis := range f.axes {
		switch {
		case axis == but:
		case axis == bench.VariantOwn:
			parts = append(parts, p.values[axis])
		default:
			parts = append(parts, axis+"="+p.values[axis])
		}
	}
	return strings.Join(parts, ", ")
}

// axisPairs compares, for every target run in variants, each two variants
// one axis apart, that pairs do not compare already: virtual against
// platform threads within each JDK, 25 against 21 within each thread
// model, and so on along every axis.
func (a *analysis) axisPairs(subs []*scopeSubject, have []bench.Pair) []bench.Pair {
	var out []bench.Pair
	for _, f := range familiesOf(subs) {
		for _, axis := range f.axes {
			for _, ap := range f.along(axis) {
				x, y := f.subs[ap.a], f.subs[ap.b]
				if hasPair(have, x.s.info.Label, y.s.info.Label) || hasPair(out, x.s.info.Label, y.s.info.Label) {
					continue
				}
				p := a.pair(x, y)
				p.Axis = f.axisLabel(axis)
				out = append(out, p)
			}
		}
	}
	return out
}

func hasPair(pairs []bench.Pair, a, b string) bool {
	return slices.ContainsFunc(pairs, func(p bench.Pair) bool { return p.A == a && p.B == b })
}

// variants adds what a report says about its targets' variants: a matrix
// of two axes per target and the finding of which axis moved its
// throughput most, from the scope the findings pair (the whole attack
// when its differences were tested, else the busiest stage), and what
// their JVMs said about their virtual threads.
func (a *analysis) variants(rep *bench.Report, scopes []*scopeData) {
	rep.VirtualThreads = a.virtualThreads()
	if len(scopes) == 0 {
		return
	}
	d := pairScope(scopes)
	for _, f := range familiesOf(d.subs) {
		rep.Matrices = append(rep.Matrices, f.matrices(d, rep.Capacity)...)
	}
	var sentences []bench.Finding
	for _, f := range familiesOf(judgedSubjects(d.subs)) {
		if s := f.axisSentence(d.out.Pairs); s != "" {
			sentences = append(sentences, bench.Finding{Kind: findAxes, Text: s})
		}
	}
	rep.Findings = beforeErrors(rep.Findings, sentences)
}

// beforeErrors puts findings where pairs end: before the sentence on
// errors.
func beforeErrors(findings, more []bench.Finding) []bench.Finding {
	i := slices.IndexFunc(findings, func(f bench.Finding) bool { return f.Kind == findErrors })
	if i < 0 {
		i = len(findings)
	}
	return slices.Insert(findings, i, more...)
}

// matrices lays the family's variants out along its first two axes, one
// matrix per value of the others; none for a family on fewer than two.
func (f *family) matrices(d *scopeData, capacity *bench.CapacityTable) []bench.Matrix {
	if len(f.axes) < 2 {
		return nil
	}
	rows, cols := f.axes[0], f.axes[1]
	var out []bench.Matrix
	for _, fixed := range f.combinations(f.axes[2:]) {
		m := bench.Matrix{Target: f.displayName(), Scope: d.def.name, Rows: f.axisLabel(rows), Columns: f.axisLabel(cols),
			RowValues: f.values[rows], ColumnValues: f.values[cols], Fixed: fixedWords(f.axes[2:], fixed)}
		for _, r := range m.RowValues {
			var line []bench.MatrixCell
			for _, c := range m.ColumnValues {
				at := maps.Clone(fixed)
				at[rows], at[cols] = r, c
				line = append(line, f.cell(at, capacity))
			}
			m.Cells = append(m.Cells, line)
		}
		out = append(out, m)
	}
	return out
}

// combinations lists every combination of the axes' values.
func (f *family) combinations(axes []string) []map[string]string {
	combos := []map[string]string{{}}
	for _, axis := range axes {
		var next []map[string]string
		for _, c := range combos {
			for _, v := range f.values[axis] {
				m := maps.Clone(c)
				m[axis] = v
				next = append(next, m)
			}
		}
		combos = next
	}
	return combos
}

func fixedWords(axes []string, fixed map[string]string) string {
	var parts []string
	for _, axis := range axes {
		parts = append(parts, axis+"="+fixed[axis])
	}
	return strings.Join(parts, ", ")
}

// cell is the figures of the subject at a position, empty where none ran.
func (f *family) cell(at map[string]string, capacity *bench.CapacityTable) bench.MatrixCell {
	key := position{values: at}.key()
	i := slices.IndexFunc(f.pos, func(p position) bool { return p.key() == key })
	if i < 0 {
		return bench.MatrixCell{}
	}
	res := f.subs[i].result
	c := bench.MatrixCell{Label: res.Label, Throughput: res.Figures.Throughput.Value, P99: res.Figures.Latency.P99.Value}
	if capacity != nil {
		for _, row := range capacity.Rows {
			if row.Target == res.Label {
				c.Capacity = &row.Rate
			}
		}
	}
	return c
}

// move is one pair's throughput change along an axis.
type move struct {
	change float64
	within string // the values of the other axes: "jdk=21"
	shown  bool   // a difference the run can show
}

// axisMoves are one axis's moves and how far the largest shown one went
// (-1 when none is shown).
type axisMoves struct {
	label, vs string // "JDK", "25 vs 21"
	moves     []move
	most      float64
}

// axisSentence says which axis moved the family's throughput most, from
// the pairs along each: "orders: the JDK moved its throughput most (25 vs
// 21: +141.0% on virtual; +2.3% on platform, no difference shown), then the thread
// model (...)." Only differences the run can show rank an axis; "" for a
// family on fewer than two axes.
func (f *family) axisSentence(pairs []bench.Pair) string {
	if len(f.axes) < 2 {
		return ""
	}
	var all []axisMoves
	for _, axis := range f.axes {
		if am, ok := f.movesAlong(axis, pairs); ok {
			all = append(all, am)
		}
	}
	if len(all) < 2 {
		return ""
	}
	slices.SortStableFunc(all, func(x, y axisMoves) int { return cmp.Compare(y.most, x.most) })
	if all[0].most < 0 {
		return fmt.Sprintf("%s: no axis moved its throughput by a difference this run can show (%s).", f.displayName(), movesWords(all, "; "))
	}
	var shown, unshown []axisMoves
	for _, am := range all {
		if am.most >= 0 {
			shown = append(shown, am)
		} else {
			unshown = append(unshown, am)
		}
	}
	s := fmt.Sprintf("%s: the %s moved its throughput most (%s)", f.displayName(), shown[0].label, shown[0].words())
	for _, am := range shown[1:] {
		s += fmt.Sprintf(", then the %s (%s)", am.label, am.words())
	}
	if len(unshown) > 0 {
		s += fmt.Sprintf("; not by a difference this run can show: %s", movesWords(unshown, "; "))
	}
	return s + "."
}

// movesAlong collects the throughput changes of the pairs along an axis.
func (f *family) movesAlong(axis string, pairs []bench.Pair) (axisMoves, bool) {
	am := axisMoves{label: f.axisLabel(axis), most: -1}
	for _, ap := range f.along(axis) {
		x, y := f.subs[ap.a], f.subs[ap.b]
		i := slices.IndexFunc(pairs, func(p bench.Pair) bool { return p.A == x.s.info.Label && p.B == y.s.info.Label })
		if i < 0 {
			continue
		}
		pf, ok := pairThroughput(pairs[i])
		if !ok {
			continue
		}
		if am.vs == "" {
			am.vs = f.pos[ap.a].values[axis] + " vs " + f.pos[ap.b].values[axis]
		}
		m := move{change: pf.Change, within: f.others(f.pos[ap.a], axis), shown: pf.Verdict != bench.VerdictNoDifference}
		if m.shown {
			am.most = max(am.most, math.Abs(m.change))
		}
		am.moves = append(am.moves, m)
	}
	return am, len(am.moves) > 0
}

func pairThroughput(p bench.Pair) (bench.PairFigure, bool) {
	i := slices.IndexFunc(p.Figures, func(pf bench.PairFigure) bool { return pf.Figure == MetricThroughput })
	if i < 0 {
		return bench.PairFigure{}, false
	}
	return p.Figures[i], true
}

// words lists an axis's moves: "25 vs 21: +141.0% on virtual; +2.3% on
// platform, no difference shown".
func (am axisMoves) words() string {
	var parts []string
	for _, m := range am.moves {
		w := PositiveZero(fmt.Sprintf("%+.1f%%", m.change))
		if m.within != "" {
			w += " on " + m.within
		}
		if !m.shown {
			w += ", no difference shown"
		}
		parts = append(parts, w)
	}
	return am.vs + ": " + strings.Join(parts, "; ")
}

func movesWords(all []axisMoves, sep string) string {
	var parts []string
	for _, am := range all {
		parts = append(parts, "the "+am.label+", "+am.words())
	}
	return strings.Join(parts, sep)
}

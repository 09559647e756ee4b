package report

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/chart"
	"github.com/threadbench/threadbench/internal/metrics"
	"github.com/threadbench/threadbench/internal/steady"
)

// Series the HTML report charts besides the catalog's thread and memory
// figures: the targets' own gauge of requests in flight, the container's
// figures, and the runtimes' GC counters (the first that has data).
const (
	seriesInflight   = metrics.InflightRequests
	seriesWorkingSet = metrics.ContainerMemoryWorkingSet
	seriesCPURatio   = metrics.ContainerCPURatio
)

var (
	gcCountSeries = metrics.GCPauseCounts
	gcTimeSeries  = metrics.GCPauseSeconds
)

// ChartSeries returns the names of the series the HTML report of a result
// may chart, given the catalog entry of its target: what LoadSource reads.
func ChartSeries(info bench.TargetInfo) []string {
	names := []string{seriesInflight, seriesWorkingSet, seriesCPURatio}
	names = append(names, gcCountSeries...)
	names = append(names, gcTimeSeries...)
	for _, src := range append(slices.Clone(info.Threads), info.Memory...) {
		for _, ref := range src.Series {
			if !slices.Contains(names, ref.Name) {
				names = append(names, ref.Name)
			}
		}
	}
	return names
}

// LoadSource assembles the source of a run's report, the one place every
// report is read from (the CLI's, the API's, the web page's): the run, the
// catalog's targets and, when the format draws charts (withSeries) and
// there is a store, the series they draw, and the samples of its flame
// graphs where the store keeps the files recorded inside the targets.
func LoadSource(ctx context.Context, store bench.SeriesStore, run *bench.Run, targets []bench.TargetInfo, withSeries bool) (Source, error) {
	src := Source{Run: run, Targets: targets}
	if !withSeries || store == nil {
		return src, nil
	}
	var err error
	if src.Series, err = loadSeries(ctx, store, run, targets); err != nil {
		return src, err
	}
	if files, ok := store.(bench.ArtifactStore); ok {
		src.Flames, err = LoadFlames(ctx, files, run)
	}
	return src, err
}

// loadSeries reads from store the series the HTML report of r charts: for
// the first round of each label, by TargetResult.Key.
func loadSeries(ctx context.Context, store bench.SeriesStore, r *bench.Run, targets []bench.TargetInfo) (map[string][]bench.Series, error) {
	out := map[string][]bench.Series{}
	for _, s := range analysis.FirstRounds(r) {
		if s.Result == nil {
			continue
		}
		key := s.Result.Key()
		info, _ := bench.LookupTarget(targets, s.Subject.Target)
		series, err := store.FindSeries(ctx, r.ID, key, ChartSeries(info))
		if err != nil {
			return nil, fmt.Errorf("series of %s: %w", key, err)
		}
		out[key] = series
	}
	return out, nil
}

// maxChartPoints bounds a line's points: past it, consecutive points are
// merged (a mean for rates, the peak for gauges and latencies), so that a
// long run's page keeps its per-point tooltips and stays small: 150 points
// is one every 5 px of a chart, and a nine-minute run of three targets
// stays under 1 MB.
const maxChartPoints = 150

// chartSet builds the HTML report's charts: one series per subject, in
// subject order so that colours match the tables, on the attack's clock.
type chartSet struct {
	rep      bench.Report
	results  []*bench.TargetResult // the first round of each subject; nil when none
	series   [][]bench.Series      // by subject
	infos    []bench.TargetInfo    // by subject
	markers  []chart.Marker
	bands    []chart.Band
	subjects []string
}

func newChartSet(rep bench.Report, src Source) chartSet {
	cs := chartSet{rep: rep}
	for _, s := range analysis.FirstRounds(src.Run) {
		first := s.Result
		info, _ := bench.LookupTarget(src.Targets, s.Subject.Target)
		var series []bench.Series
		if first != nil {
			series = src.Series[first.Key()]
		}
		cs.results, cs.series, cs.infos = append(cs.results, first), append(cs.series, series), append(cs.infos, info)
		cs.subjects = append(cs.subjects, s.Subject.Label)
	}
	cs.markers, cs.bands = stageMarks(src.Run, cs.results)
	cs.bands = append(cs.bands, cs.transientBands()...)
	return cs
}

// transientBands shade, in each subject's colour, the transient cut from
// each hold stage of its charted round, and the rest of a stage that never
// settled.
func (cs chartSet) transientBands() []chart.Band {
	var bands []chart.Band
	for _, sc := range cs.rep.Scopes {
		if sc.Stage == nil {
			continue
		}
		for _, res := range sc.Results {
			i := slices.Index(cs.subjects, res.Label)
			if i < 0 || cs.results[i] == nil {
				continue
			}
			bands = append(bands, partBands(cs.results[i], *sc.Stage, res, i)...)
		}
	}
	return bands
}

// partBands are the bands of one subject's steady part in stage index.
func partBands(t *bench.TargetResult, index int, res bench.SubjectResult, color int) []chart.Band {
	i := slices.IndexFunc(res.Steady, func(sp bench.SteadyPart) bool { return sp.Round == t.Round })
	seconds := analysis.SecondsOf(t, index)
	if i < 0 || len(seconds) == 0 {
		return nil
	}
	sp := res.Steady[i]
	from, kept := float64(seconds[0].Second), float64(seconds[0].Second+sp.Cut)
	end := float64(seconds[len(seconds)-1].Second + 1)
	keptEnd := end - float64(sp.CutEnd)
	var bands []chart.Band
	if sp.Cut > 0 {
		bands = append(bands, chart.Band{From: from, To: kept, Label: res.Label + ": transient (cut)", Tinted: true, Series: color})
	}
	if sp.CutEnd > 0 {
		bands = append(bands, chart.Band{From: keptEnd, To: end, Label: res.Label + ": transient at the end (cut)", Tinted: true, Series: color})
	}
	if !sp.Steady {
		bands = append(bands, chart.Band{From: kept, To: keptEnd, Label: res.Label + ": not steady", Tinted: true, Series: color})
	}
	return bands
}

// stageMarks marks where each stage starts and shades the warm-up.
func stageMarks(r *bench.Run, results []*bench.TargetResult) ([]chart.Marker, []chart.Band) {
	var markers []chart.Marker
	var bands []chart.Band
	for _, t := range results {
		if t == nil {
			continue
		}
		for _, s := range analysis.MeasuredStages(t) {
			if r.Spec.Capacity != nil {
				break // a search's trials are the first target's only: its search chart tells them
			}
			markers = append(markers, chart.Marker{X: s.StartOffset.D().Seconds(), Label: analysis.StageLabel(s.Index, s.Name)})
		}
		if w := t.Warmup; w != nil && w.Duration > 0 {
			from := w.StartOffset.D().Seconds()
			if from == 0 { // runs stored before the warm-up's offset was kept
				from = -w.Duration.D().Seconds()
			}
			bands = append(bands, chart.Band{From: from, To: from + w.Duration.D().Seconds(), Label: "warm-up"})
		}
		break
	}
	if len(markers) > 0 {
		end := r.Spec.Profile.Duration().D().Seconds()
		markers = append(markers, chart.Marker{X: end, Label: "end"})
	}
	return markers, bands
}

// lineCharts are the time-series charts, in the order the page shows them.
func (cs chartSet) lineCharts() []chart.LineChart {
	var charts []chart.LineChart
	if cs.rep.Searches != nil {
		charts = append(charts, cs.bucketChart("offered", "Offered rate (requests the search's schedule sent each second)", analysis.UnitReqPerSec, pointMean,
			func(b bench.Bucket) (float64, bool) { return b.Scheduled, b.Scheduled > 0 }))
	}
	charts = append(charts, []chart.LineChart{
		cs.bucketChart("throughput", "Throughput (successful responses per second, spread over their flight)", analysis.UnitReqPerSec, pointMean,
			func(b bench.Bucket) (float64, bool) { return steady.Rate(b.Stats), true }),
		cs.bucketChart("latency-p50", "p50 latency per second", analysis.UnitMs, pointMax,
			func(b bench.Bucket) (float64, bool) { return b.Stats.Latency.P50, b.Stats.Successes > 0 }),
		cs.bucketChart("latency-p99", "p99 latency per second", analysis.UnitMs, pointMax,
			func(b bench.Bucket) (float64, bool) { return b.Stats.Latency.P99, b.Stats.Successes > 0 }),
		cs.seriesChart("inflight", "Requests in flight (by the targets' own gauge)", "requests", pointMax,
			func(i int) []chart.Point { return cs.sumOf(i, bench.SeriesRef{Name: seriesInflight}, 1) }),
	}...)
	for _, kind := range cs.kinds(func(info bench.TargetInfo) []bench.FigureSource { return info.Threads }, bench.ThreadKinds) {
		charts = append(charts, cs.seriesChart("threads-"+kind, analysis.TitleCase(bench.ThreadLabel(kind)), analysis.UnitThreads, pointMax,
			func(i int) []chart.Point { return cs.figure(i, cs.infos[i].Threads, kind, 1) }))
	}
	charts = append(charts,
		cs.seriesChart("working-set", "Working set (container)", analysis.UnitMiB, pointMax,
			func(i int) []chart.Point {
				return cs.sumOf(i, bench.SeriesRef{Name: seriesWorkingSet}, 1.0/analysis.BytesPerMiB)
			}))
	for _, kind := range cs.kinds(func(info bench.TargetInfo) []bench.FigureSource { return info.Memory }, bench.MemoryKinds) {
		if kind == bench.MemoryWorkingSet {
			continue
		}
		charts = append(charts, cs.seriesChart("memory-"+kind, analysis.TitleCase(analysis.MemoryLabel(kind)), analysis.UnitMiB, pointMax,
			func(i int) []chart.Point { return cs.figure(i, cs.infos[i].Memory, kind, 1.0/analysis.BytesPerMiB) }))
	}
	return append(charts,
		cs.seriesChart("cpu", "CPU use, share of the limit", analysis.UnitPercent, pointMean,
			func(i int) []chart.Point { return cs.sumOf(i, bench.SeriesRef{Name: seriesCPURatio}, 100) }),
		cs.seriesChart("gc-pauses", "GC pauses per second", "pauses/s", pointMean,
			func(i int) []chart.Point { return rate(cs.firstOf(i, gcCountSeries, 1)) }),
		cs.seriesChart("gc-time", "GC pause time per second", analysis.UnitMs, pointMean,
			func(i int) []chart.Point { return rate(cs.firstOf(i, gcTimeSeries, 1000)) }),
	)
}

// bucketChart charts a figure of each second of the attack.
func (cs chartSet) bucketChart(id, title, unit string, merge pointMerge, pick func(bench.Bucket) (float64, bool)) chart.LineChart {
	return cs.seriesChart(id, title, unit, merge, func(i int) []chart.Point {
		t := cs.results[i]
		if t == nil {
			return nil
		}
		var points []chart.Point
		for i, b := range t.Seconds {
			if i > 0 && b.Second > t.Seconds[i-1].Second+1 { // a pause, such as between a search's trials
				points = append(points, chart.Point{X: float64(b.Second), Y: math.NaN()})
			}
			v, ok := pick(b)
			if !ok {
				v = math.NaN()
			}
			points = append(points, chart.Point{X: float64(b.Second) + 0.5, Y: v})
		}
		return points
	})
}

// seriesChart is a line chart with one series per subject, thinned to
// maxChartPoints.
func (cs chartSet) seriesChart(id, title, unit string, merge pointMerge, pointsOf func(i int) []chart.Point) chart.LineChart {
	c := chart.LineChart{ID: id, Title: title, Unit: unit, Markers: cs.markers, Bands: cs.bands}
	for i, name := range cs.subjects {
		c.Series = append(c.Series, chart.Series{Name: name, Points: thin(pointsOf(i), maxChartPoints, merge)})
	}
	return c
}

// kinds returns the figures any subject's catalog entry gives a source
// for, in bench's order.
func (cs chartSet) kinds(sources func(bench.TargetInfo) []bench.FigureSource, order []string) []string {
	found := map[string]bool{}
	for i, info := range cs.infos {
		for _, src := range sources(info) {
			if len(cs.figure(i, sources(info), src.Figure, 1)) > 0 {
				found[src.Figure] = true
			}
		}
	}
	return analysis.OrderedKinds(found, order)
}

// figure reads a resource figure of subject i from the first of its
// sources that has data.
func (cs chartSet) figure(i int, sources []bench.FigureSource, kind string, scale float64) []chart.Point {
	for _, src := range sources {
		if src.Figure != kind {
			continue
		}
		for _, ref := range src.Series {
			if points := cs.sumOf(i, ref, scale); len(points) > 0 {
				return points
			}
		}
	}
	return nil
}

// firstOf reads the first of the named series subject i has.
func (cs chartSet) firstOf(i int, names []string, scale float64) []chart.Point {
	for _, name := range names {
		if points := cs.sumOf(i, bench.SeriesRef{Name: name}, scale); len(points) > 0 {
			return points
		}
	}
	return nil
}

// sumOf sums, at each time, the series of subject i that ref picks (its
// name and, when set, one label's value), scaled.
func (cs chartSet) sumOf(i int, ref bench.SeriesRef, scale float64) []chart.Point {
	sums := map[float64]float64{}
	for _, s := range cs.series[i] {
		if s.Name != ref.Name || (ref.Label != "" && s.Labels[ref.Label] != ref.Value) {
			continue
		}
		for _, p := range s.Points {
			sums[p.T] += p.V * scale
		}
	}
	points := make([]chart.Point, 0, len(sums))
	for t, v := range sums {
		points = append(points, chart.Point{X: t, Y: v})
	}
	sort.Slice(points, func(a, b int) bool { return points[a].X < points[b].X })
	return points
}

// rate turns a counter into its increase per second, left out across a
// reset.
func rate(counter []chart.Point) []chart.Point {
	var out []chart.Point
	for i := 1; i < len(counter); i++ {
		dt, dv := counter[i].X-counter[i-1].X, counter[i].Y-counter[i-1].Y
		if dt > 0 && dv >= 0 {
			out = append(out, chart.Point{X: counter[i].X, Y: dv / dt})
		}
	}
	return out
}

// pointMerge merges the values of consecutive points into one.
type pointMerge func([]float64) float64

// pointMean keeps a rate's mean; pointMax keeps a gauge's or a latency's
// peak, which a mean would hide.
func pointMean(vs []float64) float64 {
	sum := 0.0
	for _, v := range vs {
		sum += v
	}
	return sum / float64(len(vs))
}

func pointMax(vs []float64) float64 { return slices.Max(vs) }

// thin merges runs of consecutive points so that at most n remain; missing
// values (NaN) are left out of a merge, and a run of only missing values
// stays missing.
func thin(points []chart.Point, n int, merge pointMerge) []chart.Point {
	if len(points) <= n {
		return points
	}
	per := (len(points) + n - 1) / n
	out := make([]chart.Point, 0, n)
	for start := 0; start < len(points); start += per {
		run := points[start:min(start+per, len(points))]
		var vs []float64
		for _, p := range run {
			if !math.IsNaN(p.Y) {
				vs = append(vs, p.Y)
			}
		}
		y := math.NaN()
		if len(vs) > 0 {
			y = merge(vs)
		}
		out = append(out, chart.Point{X: (run[0].X + run[len(run)-1].X) / 2, Y: y})
	}
	return out
}

// barCharts are the summary bars of a scope: throughput and p99 per
// subject with their intervals.
func (cs chartSet) barCharts(sc bench.ReportScope, id string) []chart.BarChart {
	colors := subjectColors(cs.rep)
	bars := func(pick func(bench.Figures) bench.Estimate) []chart.Bar {
		var out []chart.Bar
		for _, r := range sc.Results {
			e := pick(r.Figures)
			b := chart.Bar{Label: r.Label, Value: e.Value, Lo: math.NaN(), Hi: math.NaN(), Color: colors[r.Label]}
			if e.CI != nil {
				b.Lo, b.Hi = e.CI.Lo, e.CI.Hi
			}
			out = append(out, b)
		}
		return out
	}
	return []chart.BarChart{
		{ID: id + "-throughput", Title: "Throughput, " + sc.Name, Unit: analysis.UnitReqPerSec,
			Bars: bars(func(f bench.Figures) bench.Estimate { return f.Throughput })},
		{ID: id + "-p99", Title: "p99 latency, " + sc.Name, Unit: analysis.UnitMs,
			Bars: bars(func(f bench.Figures) bench.Estimate { return f.Latency.P99 })},
	}
}

package inside

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/diagnosis"
	"github.com/threadbench/threadbench/internal/metrics"
)

// Series the evidence reads around a target.
const (
	seriesCPURatio        = metrics.ContainerCPURatio
	seriesThrottled       = metrics.ContainerThrottledPeriods
	seriesPeriods         = metrics.ContainerPeriods
	seriesTomcatBusy      = metrics.TomcatBusyThreads
	parallelismProperty   = "-Djdk.virtualThreadScheduler.parallelism="
	tomcatPoolDescription = "Tomcat's request threads"
)

// EvidenceSeries are the series StageEvidence reads, for a caller that
// loads them from the store.
var EvidenceSeries = []string{seriesCPURatio, seriesThrottled, seriesPeriods, seriesTomcatBusy}

// StageEvidence is what is known of a result's stage from outside the
// target: its figures and flags, its resources, its limits, its request
// pool (Tomcat's busy threads against its size, where they were scraped),
// the container's CPU over the stage (from its series) and the JDK. What
// recorded inside it (events, samples) is added by the caller.
func StageEvidence(tr *bench.TargetResult, st bench.StageResult, series []bench.Series) diagnosis.Evidence {
	e := diagnosis.Evidence{Target: tr.Key(), JDK: JDK(tr), Stage: st, Limits: tr.Limits, Carriers: carriers(tr),
		Remote: tr.Engine != "" && tr.Engine != bench.EngineLocal}
	for i := range tr.Resources {
		if r := &tr.Resources[i]; r.Stage == st.Index && !r.Warmup {
			e.Resources = r
		}
	}
	for i := range tr.Database {
		if d := &tr.Database[i]; d.Stage == st.Index && !d.Warmup {
			e.Database = d
		}
	}
	from := st.StartOffset.D().Seconds()
	to := from + st.Duration.D().Seconds()
	e.Pool = pool(tr, series, from, to)
	e.CPU = cpu(series, from, to)
	return e
}

// runtimeMajor finds the Java major in a runtime's name: "OpenJDK
// 21.0.8+9", "OpenJDK 25".
var runtimeMajor = regexp.MustCompile(`(?i)(?:jdk|java)\D{0,3}(\d+)`)

// JDK returns the Java major a result ran on, from its image's runtime;
// 0 for other runtimes, or where it does not say.
func JDK(tr *bench.TargetResult) int {
	m := runtimeMajor.FindStringSubmatch(tr.Image.Runtime)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// carriers returns the virtual-thread scheduler's parallelism the JVM was
// given, 0 for its default.
func carriers(tr *bench.TargetResult) float64 {
	for _, flags := range []string{tr.Settings["jvmFlags"], tr.Settings["javaToolOptions"]} {
		for _, f := range strings.Fields(flags) {
			if v, ok := strings.CutPrefix(f, parallelismProperty); ok {
				if n, err := strconv.Atoi(v); err == nil && n > 0 {
					return float64(n)
				}
			}
		}
	}
	return 0
}

// pool is Tomcat's pool of request threads on platform threads, where its
// busy threads were scraped over the stage.
func pool(tr *bench.TargetResult, series []bench.Series, from, to float64) *diagnosis.Pool {
	size, ok := tr.PoolThreads()
	if !ok {
		return nil
	}
	busy, ok := gauge(find(series, seriesTomcatBusy), from, to)
	if !ok {
		return nil
	}
	return &diagnosis.Pool{Name: tomcatPoolDescription, Busy: busy, Max: float64(size)}
}

// cpu is the container's CPU over the stage as shares of its limit, and
// its CFS periods throttled, from its series; nil without them.
func cpu(series []bench.Series, from, to float64) *diagnosis.CPU {
	use, ok := gauge(midpoints(find(series, seriesCPURatio)), from, to)
	if !ok {
		return nil
	}
	c := &diagnosis.CPU{Share: use.Mean, PeakShare: use.Peak}
	throttled, okT := increase(find(series, seriesThrottled), from, to)
	periods, okP := increase(find(series, seriesPeriods), from, to)
	if okT && okP && periods > 0 {
		c.ThrottledPeriods, c.Periods = throttled, periods
	}
	return c
}

// find returns the points of the first series called name.
func find(series []bench.Series, name string) []bench.Point {
	for _, s := range series {
		if s.Name == name {
			return s.Points
		}
	}
	return nil
}

// midpoints moves each point of a series of rates, each the rate since the
// point before, to the middle of its interval, so that a window takes the
// intervals mostly inside it (the first point, which has no interval, is
// left out).
func midpoints(points []bench.Point) []bench.Point {
	out := make([]bench.Point, 0, len(points))
	for i := 1; i < len(points); i++ {
		out = append(out, bench.Point{T: (points[i-1].T + points[i].T) / 2, V: points[i].V})
	}
	return out
}

// gauge returns the mean and peak of the points inside [from, to].
func gauge(points []bench.Point, from, to float64) (bench.Gauge, bool) {
	var g bench.Gauge
	n := 0
	for _, p := range points {
		if p.T < from || p.T > to || math.IsNaN(p.V) {
			continue
		}
		g.Mean += p.V
		g.Peak = max(g.Peak, p.V)
		n++
	}
	if n == 0 {
		return bench.Gauge{}, false
	}
	g.Mean /= float64(n)
	return g, true
}

// increase returns how much a counter grew over [from, to]: from its last
// point at or before from (its first inside, when none) to its last point
// at or before to.
func increase(points []bench.Point, from, to float64) (float64, bool) {
	first, last := math.NaN(), math.NaN()
	for _, p := range points {
		if p.T <= from || math.IsNaN(first) && p.T <= to {
			first = p.V
		}
		if p.T <= to {
			last = p.V
		}
	}
	if math.IsNaN(first) || math.IsNaN(last) || last < first {
		return 0, false
	}
	return last - first, true
}

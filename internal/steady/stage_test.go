package steady_test

import (
	"math"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/internal/steady"
)

// second is one full second answering n requests, all of them in ms.
func second(t *testing.T, i, n int, ms float64) bench.Bucket {
	t.Helper()
	h := hdr.New()
	for range n {
		hdr.Record(h, time.Duration(ms*float64(time.Millisecond)))
	}
	enc, err := hdr.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return bench.Bucket{Second: i, Stats: bench.Stats{Requests: int64(n), Successes: int64(n), Completed: int64(n),
		Throughput: float64(n), Elapsed: bench.Duration(time.Second), Latency: hdr.Summarize(h), Histogram: enc,
		StatusCodes: map[string]int64{"200": int64(n)}}}
}

func TestOfSeconds(t *testing.T) {
	// Latency falls from 40 ms to 20 over four seconds while throughput is
	// flat: the p50 sets the cut.
	var seconds []bench.Bucket
	for i := range 20 {
		ms := 20.0 + float64(i%2)*0.2
		if i < 4 {
			ms = 40 - 5*float64(i)
		}
		seconds = append(seconds, second(t, i, 1000+i%3, ms))
	}
	p := steady.OfSeconds(seconds)
	if got, want := p.Start, 4; !p.Steady || got < want-1 || got > want+1 {
		t.Errorf("OfSeconds = start %d, steady %v; want start %d ± 1, steady", got, p.Steady, want)
	}
	if got, want := len(p.Kept(seconds)), 20-p.Start; got != want {
		t.Errorf("Kept = %d seconds, want %d", got, want)
	}
}

// TestOfSecondsColdStart is the stage: its figure is the mean of
// its steady seconds (about 397 req/s), not of every second with the cold
// first one (371.7).
func TestOfSecondsColdStart(t *testing.T) {
	var seconds []bench.Bucket
	for i, v := range coldStart {
		seconds = append(seconds, second(t, i, int(v), 500))
	}
	p := steady.OfSeconds(seconds)
	if !p.Steady || p.Start != 1 || p.EndCut != 0 {
		t.Fatalf("OfSeconds = %+v, want steady with the first second cut", p)
	}
	st, _, ok := steady.Stats(p.Kept(seconds))
	if !ok {
		t.Fatal("Stats: not ok")
	}
	var sum float64
	for _, v := range coldStart[1:] {
		sum += v
	}
	if got, want := st.Throughput, sum/float64(len(coldStart)-1); math.Abs(got-want) > 0.01*want {
		t.Errorf("throughput of the kept seconds = %.1f, want the steady seconds' mean %.1f within 1 %%", got, want)
	}
}

func TestOfSecondsTrend(t *testing.T) {
	var seconds []bench.Bucket
	for i := range 20 {
		seconds = append(seconds, second(t, i, 1000+50*i, 10))
	}
	p := steady.OfSeconds(seconds)
	if p.Steady || p.Figure != steady.FigureThroughput || p.Trend <= 0 {
		t.Errorf("OfSeconds = %+v, want not steady, throughput trending up", p)
	}
}

func TestStats(t *testing.T) {
	seconds := []bench.Bucket{second(t, 0, 100, 10), second(t, 1, 300, 30)}
	st, hists, ok := steady.Stats(seconds)
	if !ok || len(hists) != 2 {
		t.Fatalf("Stats: ok %v, %d histograms; want ok, 2", ok, len(hists))
	}
	if got, want := st.Requests, int64(400); got != want {
		t.Errorf("Requests = %d, want %d", got, want)
	}
	if got, want := st.Throughput, 200.0; got != want {
		t.Errorf("Throughput = %v, want %v", got, want)
	}
	if got, want := st.StatusCodes["200"], int64(400); got != want {
		t.Errorf("StatusCodes[200] = %d, want %d", got, want)
	}
	// Three quarters of the answers took 30 ms: the merged p50 is theirs.
	if got, want := st.Latency.P50, 30.0; got < want*0.99 || got > want*1.01 {
		t.Errorf("P50 = %v, want %v", got, want)
	}
	seconds[1].Stats.Histogram = ""
	if _, _, ok := steady.Stats(seconds); ok {
		t.Errorf("Stats of a second without its histogram: ok, want not ok")
	}
}

// poolRun is Go's 400-client stage on heavy?duration=500 in the pool run
// that was called "not steady" (a trend of -0.54 %/s): per-second
// completions that dip while the bunch of clients in step straddles a
// second's boundary. The latency never passed 511 ms and nothing failed.
var poolRun = []float64{800, 800, 800, 800, 800, 800, 782, 775, 772, 789, 760, 750}

// TestOfSecondsAliasedClosed: the steady-state test reads each second's
// CompletedSpread, which the target's steady ~797.6 req/s keeps flat,
// not the completions that alias; a run recorded before seconds kept it
// is read from its completions, as before.
func TestOfSecondsAliasedClosed(t *testing.T) {
	var seconds []bench.Bucket
	for i, v := range poolRun {
		b := second(t, i, int(v), 500)
		b.Stats.CompletedSpread = 797.6 + 0.1*float64(i%3)
		seconds = append(seconds, b)
	}
	if p := steady.OfSeconds(seconds); !p.Steady || p.Start != 0 || p.EndCut != 0 {
		t.Errorf("OfSeconds = %+v, want steady, nothing cut", p)
	}
	for i := range seconds {
		seconds[i].Stats.CompletedSpread = 0
	}
	if got := steady.Throughputs(seconds); got[6] != 782 {
		t.Errorf("Throughputs of seconds without a spread = %v, want their completions", got)
	}
	if p := steady.OfSeconds(seconds); p.Steady {
		t.Fatalf("the completions alone judged steady (%+v): the series no longer shows what spreading fixes", p)
	}
}

// TestOfSecondsSpreadTrend: a throughput that climbs still climbs when
// each answer is spread over its flight.
func TestOfSecondsSpreadTrend(t *testing.T) {
	var seconds []bench.Bucket
	for i := range 20 {
		b := second(t, i, 1000, 10)
		b.Stats.CompletedSpread = 1000 + 50*float64(i)
		seconds = append(seconds, b)
	}
	p := steady.OfSeconds(seconds)
	if p.Steady || p.Figure != steady.FigureThroughput || p.Trend <= 0 {
		t.Errorf("OfSeconds = %+v, want not steady, throughput trending up", p)
	}
}

// TestRateOfLongFlights: a window of a few flights (400 clients queued
// about 3 s each for a pool that serves 95 a second, a 5 s stage) reads its
// completions, not a spread its edges inflate past what was served; a
// window of many flights reads its spread.
func TestRateOfLongFlights(t *testing.T) {
	var long, short []bench.Bucket
	for i := range 5 {
		b := second(t, i, 95, 3000)
		b.Stats.CompletedSpread = 109.8
		long = append(long, b)
		b = second(t, i, 95, 50)
		b.Stats.CompletedSpread = 97.5
		short = append(short, b)
	}
	if got, ok := steady.RateOf(long); !ok || got != 95 {
		t.Errorf("RateOf(5 s of 3 s flights) = %v, %v; want the completions' 95 req/s", got, ok)
	}
	if got, ok := steady.RateOf(short); !ok || math.Abs(got-97.5) > 1e-9 {
		t.Errorf("RateOf(5 s of 50 ms flights) = %v, %v; want the spread's 97.5 req/s", got, ok)
	}
}

// A stage's rate is its report figure: over the steady part, the step's
// transient cut (java-virtual as 200 new clients reached its one carrier:
// 790 completions, then about 960 a second); where nothing is cut, the
// spread; where nothing is cut and no second kept a spread, none.
func TestStageRate(t *testing.T) {
	var stepped []bench.Bucket
	for i, n := range []int{790, 971, 934, 960, 973} {
		stepped = append(stepped, second(t, i, n, 200))
	}
	rate, part, ok := steady.StageRate(stepped)
	if want := (971.0 + 934 + 960 + 973) / 4; !ok || part.Start != 1 || math.Abs(rate-want) > 1e-9 {
		t.Errorf("after a step: %.2f req/s, cut %d, %v; want %.2f, the first second cut", rate, part.Start, ok, want)
	}

	var flat []bench.Bucket
	for i := range 5 {
		b := second(t, i, 960+i%2, 200)
		b.Stats.CompletedSpread = 955
		flat = append(flat, b)
	}
	if rate, part, ok := steady.StageRate(flat); !ok || part.Start != 0 || rate != 955 {
		t.Errorf("a flat stage: %.2f req/s, cut %d, %v; want its spread, 955", rate, part.Start, ok)
	}
	for i := range flat {
		flat[i].Stats.CompletedSpread = 0
	}
	if _, _, ok := steady.StageRate(flat); ok {
		t.Error("a flat stage with no spread kept gave a rate; want the stage's own figure to serve")
	}
	if _, _, ok := steady.StageRate(nil); ok {
		t.Error("no seconds gave a rate")
	}
}

// A stage's seconds are its own full ones: not the next stage's, nor a
// last second the attack's end cut short.
func TestStageSeconds(t *testing.T) {
	tr := &bench.TargetResult{}
	for i := range 6 {
		b := second(t, i, 100, 10)
		b.Stage = i / 3
		if i == 5 {
			b.Stats.Elapsed = bench.Duration(400 * time.Millisecond)
		}
		tr.Seconds = append(tr.Seconds, b)
	}
	if got := steady.StageSeconds(tr, 1); len(got) != 2 || got[0].Second != 3 || got[1].Second != 4 {
		t.Errorf("stage 1's seconds: %+v; want seconds 3 and 4", got)
	}
}

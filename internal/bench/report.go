package bench

// Report is one run's answer to the question threadbench asks: its targets
// (or cases) side by side, for the whole attack and per stage, with each
// figure's confidence interval, the order of the targets per figure and
// whether the differences are real, the bounds that limit each target, and
// short findings drawn from those figures only. It is computed from what a
// run stores, so every past run has one; what an old run lacks (per-request
// figures, rounds, per-second buckets) is left out and named in Notes.
type Report struct {
	Run         RunRef      `json:"run"`
	Profile     string      `json:"profile"`  // "seed-k6 (closed model): 6s ramp to 100 clients, ..."
	Model       Model       `json:"model"`    // the load model of the measured stages
	Workload    string      `json:"workload"` // "/api/heavy?duration=500 x1, /api/light x1; timeout 30s"
	Limits      string      `json:"limits"`   // per target
	Environment Environment `json:"environment"`
	// Rounds is how many rounds the run had (spec.repeat, 1 without).
	Rounds int `json:"rounds"`
	// Confidence is the level asked of every interval, Alpha the
	// significance level of every test and MinEffect the smallest
	// difference, in percent, a verdict calls better or worse.
	Confidence float64 `json:"confidence"`
	Alpha      float64 `json:"alpha"`
	MinEffect  float64 `json:"minEffect"`
	// Method says what the intervals and tests rest on: values per round,
	// or, with one round, batch means of per-second values (within-run).
	Method string `json:"method"`
	// LatencyNote says where latency is measured from in this run's model.
	LatencyNote string          `json:"latencyNote"`
	Subjects    []ReportSubject `json:"subjects"`
	Scopes      []ReportScope   `json:"scopes"` // the whole attack, then each measured stage
	Findings    []Finding       `json:"findings"`
	Notes       []string        `json:"notes,omitempty"`
	// Capacity is a capacity run's answer; Scalability the USL fitted to a
	// closed-model sweep per target.
	Capacity    *CapacityTable   `json:"capacity,omitempty"`
	Scalability []ScalabilityFit `json:"scalability,omitempty"`
	// Why is what happened inside the targets and what it says of each
	// stage; nil when the run measured nothing.
	Why *WhyReport `json:"why,omitempty"`
}

// ReportSubject is what a report compares: one result label of the run (a
// target, or a case), across its rounds. Its index in Report.Subjects is
// its colour in every chart and table.
type ReportSubject struct {
	Label   string       `json:"label"`
	Target  string       `json:"target"`
	Engine  string       `json:"engine,omitempty"` // the engine it ran on
	Status  TargetStatus `json:"status"`           // succeeded only when every round did
	Rounds  int          `json:"rounds"`           // rounds with measured figures
	Runtime string       `json:"runtime,omitempty"`
	Error   string       `json:"error,omitempty"`
}

// ReportScope is the whole attack or one stage, every subject's figures in
// it, and what they say side by side.
type ReportScope struct {
	Stage    *int            `json:"stage,omitempty"` // the stage's index; absent for the whole attack
	Name     string          `json:"name"`            // "whole attack", "stage 2 (c400)"
	Load     string          `json:"load"`            // "closed, 400 clients", "open, ramp to 500 req/s"
	Duration Duration        `json:"duration"`
	Results  []SubjectResult `json:"results"`
	Ranks    []Rank          `json:"ranks,omitempty"`
	Pairs    []Pair          `json:"pairs,omitempty"`
	Bounds   []Bound         `json:"bounds,omitempty"`
}

// SubjectResult is one subject's figures in a scope. Counts (requests,
// errors, bytes) are totals over the rounds; every other figure is the
// median of the rounds, or the one round's figure.
type SubjectResult struct {
	Label     string           `json:"label"`
	Figures   Figures          `json:"figures"`
	Requests  []RequestFigures `json:"requests,omitempty"` // per request, when the workload mixes several
	Resources *ResourceFigures `json:"resources,omitempty"`
	Flags     []Flag           `json:"flags,omitempty"` // generator-bound, disturbed; "round 2: ..." with rounds
	// Steady says, round by round, which part of a hold stage its figures
	// come from; absent for ramps and for a whole attack of several stages.
	Steady []SteadyPart `json:"steady,omitempty"`
}

// SteadyPart is the steady part of one round of a hold stage: its first
// Cut of Seconds full seconds were a transient (a warm-up, the move from
// the previous load), and so were its last CutEnd (answers lost to the
// attack's end, the next load), and they were left out of its figures. A
// stage that is not
// Steady still trends after the cut: Figure moves by Trend percent of its
// mean per second, and no ranking or pair verdict is drawn from it.
type SteadyPart struct {
	Round   int     `json:"round"` // 0-based, as TargetResult.Round
	Seconds int     `json:"seconds"`
	Cut     int     `json:"cut"`
	CutEnd  int     `json:"cutEnd,omitempty"`
	Steady  bool    `json:"steady"`
	Figure  string  `json:"figure,omitempty"` // "throughput" or "p50", when not steady
	Trend   float64 `json:"trend,omitempty"`  // percent per second, when not steady
}

// RequestFigures are the figures of one request of a mixed workload
// ("heavy?duration=500").
type RequestFigures struct {
	Name    string  `json:"name"`
	Figures Figures `json:"figures"`
}

// Figures are the request figures of a scope: throughput of completed
// requests (req/s), error rate (percent) and latency (ms).
type Figures struct {
	Requests   int64            `json:"requests"`
	Completed  int64            `json:"completed"`
	Errors     int64            `json:"errors"`
	BytesIn    int64            `json:"bytesIn"`
	BytesOut   int64            `json:"bytesOut"`
	Throughput Estimate         `json:"throughput"`
	ErrorRate  Estimate         `json:"errorRate"`
	Latency    LatencyEstimates `json:"latency"`
}

// LatencyEstimates is a latency distribution in milliseconds, each figure
// with its interval when there is one.
type LatencyEstimates struct {
	Min  Estimate `json:"min"`
	Mean Estimate `json:"mean"`
	P50  Estimate `json:"p50"`
	P90  Estimate `json:"p90"`
	P95  Estimate `json:"p95"`
	P99  Estimate `json:"p99"`
	P999 Estimate `json:"p999"`
	Max  Estimate `json:"max"`
}

// Estimate is a figure and, when the run allows one, its confidence
// interval.
type Estimate struct {
	Value float64   `json:"value"`
	CI    *Interval `json:"ci,omitempty"`
}

// Interval is a confidence interval: Lo to Hi at Level (the level it
// achieves, which for order statistics may exceed the one asked), made by
// Method from N values.
type Interval struct {
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	Level  float64 `json:"level"`
	Method string  `json:"method"` // Interval methods below
	N      int     `json:"n"`      // rounds, or per-second values
}

// Interval methods.
const (
	// IntervalMedian is benchmath's distribution-free interval of the median
	// of the rounds (6 rounds or more at 95%).
	IntervalMedian = "median of rounds"
	// IntervalRange is the lowest to the highest round, when the rounds are
	// too few for the level asked: it holds the median with probability
	// 1 - 2^(1-n) (75% for 3 rounds).
	IntervalRange = "range of rounds"
	// IntervalWithinRun is the figure ± the half-width of a batch-means
	// interval of the per-second values of the stage's steady part. It
	// speaks for this run only, not for run-to-run variation.
	IntervalWithinRun = "within-run"
)

// ResourceFigures are a subject's resource figures in a scope: peaks of
// each thread kind and memory figure (MiB), CPU seconds per 1,000
// requests and GC pauses.
type ResourceFigures struct {
	Threads         map[string]Estimate `json:"threads,omitempty"`
	MemoryMiB       map[string]Estimate `json:"memoryMiB,omitempty"`
	CPUSecondsPer1k *Estimate           `json:"cpuSecondsPer1k,omitempty"`
	GCPauses        *Estimate           `json:"gcPauses,omitempty"`
	GCPauseSeconds  *Estimate           `json:"gcPauseSeconds,omitempty"`
}

// Rank orders the subjects by one figure, best first, like the rankings
// of seed 000: each with its value relative to the best (throughput 0.68
// of the best; latency 2.1 times the best) and whether it differs from the
// one ranked above it.
type Rank struct {
	Figure         string      `json:"figure"` // throughput, mean, p50, p95, p99, max, errorRate
	Unit           string      `json:"unit"`
	HigherIsBetter bool        `json:"higherIsBetter"`
	Entries        []RankEntry `json:"entries"`
}

// RankEntry is one subject's place in a Rank. Place follows the value; Same
// is true when the difference from the entry above is not significant or
// below the minimum effect, as VsAbove says. VsAbove is absent for the
// first entry and where no test could be made (one round over stages of
// different loads: the stages are tested instead).
type RankEntry struct {
	Label    string        `json:"label"`
	Place    int           `json:"place"`
	Value    float64       `json:"value"`
	Relative float64       `json:"relative"` // value / best value
	Same     bool          `json:"same,omitempty"`
	VsAbove  *Significance `json:"vsAbove,omitempty"`
}

// Pair compares two subjects users ask about (java-virtual against
// java-platform, java-virtual against go): A relative to B.
type Pair struct {
	A       string       `json:"a"`
	B       string       `json:"b"`
	Figures []PairFigure `json:"figures"`
}

// PairFigure is one figure of a Pair: Change is (A - B) / B in percent,
// Ratio A / B, and Verdict whether A is better, worse, or not
// significantly different.
type PairFigure struct {
	Figure         string       `json:"figure"`
	Unit           string       `json:"unit"`
	A              float64      `json:"a"`
	B              float64      `json:"b"`
	Change         float64      `json:"change"`
	Ratio          float64      `json:"ratio"`
	HigherIsBetter bool         `json:"higherIsBetter"`
	Verdict        string       `json:"verdict"` // VerdictBetter, VerdictWorse or VerdictNoDifference
	Test           Significance `json:"test"`
	// CVA and CVB are the run-to-run coefficients of variation of A's and
	// B's per-round values, in percent: how much a round differs from the
	// next. Absent with fewer than two rounds.
	CVA *float64 `json:"cvA,omitempty"`
	CVB *float64 `json:"cvB,omitempty"`
}

// VerdictNoDifference is the verdict of a difference that is not
// significant at the report's (or comparison's) alpha, or smaller than its
// minimum effect.
const VerdictNoDifference = "no significant difference"

// Significance is a test of whether two sets of values differ: Mann-Whitney
// U on per-round values, or on batch means of per-second values when there
// is one round (Samples says which).
type Significance struct {
	P           float64  `json:"p"`
	NA          int      `json:"nA"`
	NB          int      `json:"nB"`
	Alpha       float64  `json:"alpha"`
	Significant bool     `json:"significant"`
	Method      string   `json:"method"`
	Samples     string   `json:"samples"` // "rounds" or "within-run batch means"
	Warnings    []string `json:"warnings,omitempty"`
}

// Bound is what limits a subject's throughput in a stage, set beside the
// measured figure: Little's law (clients ÷ (mean latency + think time):
// what the measured latency allows), the clients' ceiling (clients ÷
// service time) and, for a thread pool, pool ÷ service time. Binds marks
// the lowest ceiling.
type Bound struct {
	Label    string  `json:"label"`
	Kind     string  `json:"kind"`  // Bound kinds below
	Basis    string  `json:"basis"` // "200 threads ÷ 0.500 s service time"
	Allowed  float64 `json:"allowed"`
	Measured float64 `json:"measured"`
	Binds    bool    `json:"binds,omitempty"`
	// Slack is what the stage's edges may add to a measured throughput,
	// req/s: the requests in flight when it began (clients or threads)
	// complete within it. A measured figure above Allowed + Slack is
	// impossible.
	Slack float64 `json:"slack,omitempty"`
}

// Bound kinds.
const (
	BoundLittle  = "little"
	BoundClients = "clients"
	BoundPool    = "pool"
)

// Finding is one short sentence a report draws from its figures, of a
// kind: throughput, latency, pair, bound, memory, errors, flag, status.
type Finding struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

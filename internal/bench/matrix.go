package bench

// Matrix is a target's variants laid out along two of its axes (its
// thread models by JDK, say): per cell the variant's throughput and p99
// in one scope of the report and, where a capacity search ran, its
// capacity. A target with more axes has a matrix per value of the others.
type Matrix struct {
	// Target is the target whose variants the cells are: a service of
	// one's own, or "java" for the built-in Java targets.
	Target string `json:"target"`
	// Scope names the report's scope the figures come from ("whole
	// attack", "stage 2 (c150)").
	Scope        string   `json:"scope"`
	Rows         string   `json:"rows"`    // the axis of the rows: "thread model"
	Columns      string   `json:"columns"` // the axis of the columns: "JDK"
	RowValues    []string `json:"rowValues"`
	ColumnValues []string `json:"columnValues"`
	// Fixed is the value of each other axis ("pool=t200").
	Fixed string         `json:"fixed,omitempty"`
	Cells [][]MatrixCell `json:"cells"` // by row, then column
}

// MatrixCell is one variant's figures in a Matrix; Label is empty where
// no subject ran that combination.
type MatrixCell struct {
	Label      string   `json:"label,omitempty"`
	Throughput float64  `json:"throughput"` // req/s
	P99        float64  `json:"p99"`        // ms
	Capacity   *float64 `json:"capacity,omitempty"`
}

// VirtualThreadRow is what one subject's JVM said about its virtual
// threads in one measured stage, the median of its rounds: the pins of its
// carriers and the failed submits JFR saw (Micrometer's
// VirtualThreadMetrics, or the built-in Java target's own count), and on
// JDK 24 and later the scheduler's peaks. A figure the JVM did not expose
// is absent.
type VirtualThreadRow struct {
	Label  string  `json:"label"`
	Stage  string  `json:"stage"`
	Pinned float64 `json:"pinned"`
	// PinnedSeconds is how long its carriers were pinned in all;
	// PinnedPerSecond that over the stage's seconds: 1 is one carrier
	// pinned all the time.
	PinnedSeconds   float64  `json:"pinnedSeconds"`
	PinnedPerSecond float64  `json:"pinnedPerSecond"`
	SubmitFailed    *float64 `json:"submitFailed,omitempty"`
	Parallelism     *float64 `json:"parallelism,omitempty"`
	PoolSize        *float64 `json:"poolSize,omitempty"`
	Queued          *float64 `json:"queued,omitempty"`
}

package bench

// Verdicts of a diagnosis: what held a target back in a stage. The
// generator's and the connections' limits are the flags' own kinds,
// FlagGeneratorBound and FlagConnectionBound, so that one word names one
// cause wherever it appears.
const (
	VerdictPoolBound = "pool-bound" // request threads (or another pool) in use at their limit
	VerdictCPUBound  = "cpu-bound"  // the container's CPU at its limit, or throttled
	VerdictPinned    = "pinned"     // virtual threads holding their carriers while blocked
	VerdictLockBound = "lock-bound" // request threads blocked on monitors and locks
	VerdictGCBound   = "gc-bound"   // the stage's time spent in GC pauses
	// VerdictDBPoolBound: requests waiting for a database connection with
	// every one of the pool's lent out.
	VerdictDBPoolBound = "db-pool-bound"
	// VerdictNetworkBound: most of a request's time passed outside the
	// target's handlers while its threads, pools and CPU had room: on the
	// network between the load generator and it.
	VerdictNetworkBound = "network-bound"
)

// Profile sources: what recorded the evidence inside a target.
const (
	ProfileJFR   = "jfr"   // the JVM's flight recorder
	ProfilePprof = "pprof" // Go's net/http/pprof CPU profile
)

// Diagnosis is why a target's stage ran as it did: the verdicts its
// evidence supports (Causes), strongest first, each with the figures and stacks
// that support it, and the frames its CPU samples fell in most.
type Diagnosis struct {
	Target string `json:"target"` // TargetResult.Key()
	Stage  int    `json:"stage"`  // StageResult.Index
	// Source is what recorded inside the target (ProfileJFR,
	// ProfilePprof); empty when nothing did, NoProfile then says why.
	Source    string `json:"source,omitempty"`
	NoProfile string `json:"noProfile,omitempty"`
	// JDK is the Java major the target ran on, 0 for other runtimes.
	// SynchronizedPins says whether that JDK still pins a virtual thread
	// blocked inside synchronized (before 24: JEP 491 lifted it).
	JDK              int     `json:"jdk,omitempty"`
	SynchronizedPins bool    `json:"synchronizedPins,omitempty"`
	Causes           []Cause `json:"causes,omitempty"`
	// TopFrames are the frames the stage's CPU samples fell in most, by
	// self samples; Samples is how many samples the stage had.
	TopFrames []FrameCount `json:"topFrames,omitempty"`
	Samples   int64        `json:"samples,omitempty"`
	// OwnFrames are where the service's own code was in those samples:
	// the innermost frame of its own on each stack (below the filters and
	// handlers that call it), by samples; empty where its code is not
	// told apart.
	OwnFrames []FrameCount `json:"ownFrames,omitempty"`
}

// Cause is one verdict and its evidence. Share is how much of what the
// verdict is about the cause took, 0..1 (the carriers' time pinned, the
// CPU limit used, the pool in use), so that causes can be ranked; the
// sentence says it in words, naming where it happened.
type Cause struct {
	Kind     string       `json:"kind"` // a Verdict... or Flag... kind
	Sentence string       `json:"sentence"`
	Share    float64      `json:"share"`
	Evidence []Figure     `json:"evidence,omitempty"`
	Stacks   []StackCount `json:"stacks,omitempty"` // where it happened, most first
	// Waits is what the cause's threads waited for, where its stacks name
	// a well-known wait ("database connections", "a downstream's answer");
	// empty otherwise.
	Waits string `json:"waits,omitempty"`
	// Try is what to try against the cause, one line; empty where nothing
	// is known to help.
	Try string `json:"try,omitempty"`
}

// Figure is one measured figure behind a cause, and the bound it was
// held against where it has one.
type Figure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
	Limit float64 `json:"limit,omitempty"`
}

// StackCount is a stack in which events of a cause happened: its
// frames, innermost first ("com.example.Foo.bar:42", "main.work"), how
// many events, how long they took in all, and their share of the
// cause's events (of its time where events have a duration).
type StackCount struct {
	Frames  []string `json:"frames"`
	Count   int64    `json:"count"`
	Seconds float64  `json:"seconds,omitempty"`
	Share   float64  `json:"share"`
}

// FrameCount is a frame of CPU samples: the samples it was running in
// (self) and the samples it was on the stack of (cumulative).
type FrameCount struct {
	Frame      string `json:"frame"`
	Self       int64  `json:"self"`
	Cumulative int64  `json:"cumulative"`
}

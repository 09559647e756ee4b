package bench

import (
	"context"
	"strconv"
	"time"
)

// RunStatus is where a run is in its life.
type RunStatus string

// Run statuses: queued -> running -> succeeded | failed | canceled.
// A run left running by a process that died is marked interrupted on the
// next start.
const (
	RunQueued      RunStatus = "queued"
	RunRunning     RunStatus = "running"
	RunSucceeded   RunStatus = "succeeded"
	RunFailed      RunStatus = "failed"
	RunCanceled    RunStatus = "canceled"
	RunInterrupted RunStatus = "interrupted"
)

// Finished reports whether the status is final.
func (s RunStatus) Finished() bool {
	switch s {
	case RunSucceeded, RunFailed, RunCanceled, RunInterrupted:
		return true
	}
	return false
}

// RunStatuses lists every status, for validating filters.
var RunStatuses = []RunStatus{RunQueued, RunRunning, RunSucceeded, RunFailed, RunCanceled, RunInterrupted}

// TargetStatus is where one target of a run is.
type TargetStatus string

// Target statuses.
const (
	TargetPending   TargetStatus = "pending"
	TargetRunning   TargetStatus = "running"
	TargetSucceeded TargetStatus = "succeeded"
	TargetFailed    TargetStatus = "failed"
	TargetCanceled  TargetStatus = "canceled"
	TargetSkipped   TargetStatus = "skipped"
)

// Run is one benchmark run: its spec, where it is, the environment it ran
// in, and one result per target.
type Run struct {
	ID     string    `json:"id"`
	Name   string    `json:"name,omitempty"`
	Status RunStatus `json:"status"`
	Error  string    `json:"error,omitempty"`
	Spec   RunSpec   `json:"spec"`
	// Parts are the runs one submission of an experiment of several parts
	// queued together, one per part in the experiment's order, this one
	// among them: the same list in each. Empty for a run of its own.
	Parts       []string          `json:"parts,omitempty"`
	Environment Environment       `json:"environment"`
	Downstream  *DownstreamResult `json:"downstream,omitempty"`
	Database    *DatabaseResult   `json:"database,omitempty"`
	Targets     []TargetResult    `json:"targets"`
	CreatedAt   time.Time         `json:"createdAt"`
	StartedAt   *time.Time        `json:"startedAt,omitempty"`
	FinishedAt  *time.Time        `json:"finishedAt,omitempty"`
}

// Target returns the result with the given key (TargetResult.Key: the
// target, or its case, with "#N" for round N after the first), or nil.
func (r *Run) Target(key string) *TargetResult {
	for i := range r.Targets {
		if r.Targets[i].Key() == key {
			return &r.Targets[i]
		}
	}
	return nil
}

// Machine is what is known of a host: the one description the run's
// environment, each engine's environment, an engine's own account
// (EngineInfo) and a catalog's engine bounds share, embedded, so that one
// is copied into another in one assignment. Embedded, its fields keep their
// JSON names and places in the documents that hold it.
type Machine struct {
	Host          string `json:"host,omitempty"` // the host's name
	OS            string `json:"os,omitempty"`
	Kernel        string `json:"kernel,omitempty"`
	CPUModel      string `json:"cpuModel,omitempty"` // empty where the engine API does not say (a remote host's, until its first target's /info)
	CPUs          int    `json:"cpus,omitempty"`
	MemoryBytes   int64  `json:"memoryBytes,omitempty"`
	DockerVersion string `json:"dockerVersion,omitempty"` // the engine's, e.g. "20.10.24+dfsg1"
	CgroupVersion string `json:"cgroupVersion,omitempty"` // "1" or "2"
}

// Environment records where a run was measured, so that results from
// different machines are never mistaken for each other. Its host fields
// (Machine) are the orchestrator's, where the load generator runs; Engines
// are where the targets ran (the same host for EngineLocal).
type Environment struct {
	Machine
	OrchestratorGo  string `json:"orchestratorGo,omitempty"`
	LoadCPUSet      string `json:"loadCpuset,omitempty"`
	TargetCPUSet    string `json:"targetCpuset,omitempty"`
	CPUSplitApplied bool   `json:"cpuSplitApplied"`
	// Engines describe each engine the run's targets ran on, and its host.
	Engines []EngineEnvironment `json:"engines,omitempty"`
	// MixedEngines marks a run whose targets ran on different engines:
	// their figures differ by host as well as by thread model.
	MixedEngines bool `json:"mixedEngines,omitempty"`
	// Generators are where the load generators ran when several sent the
	// attacks (a swarm's), as the first attack placed them (each target's
	// result says where its own were); empty when this host's orchestrator
	// sent them, as Machine says.
	Generators []GeneratorEnvironment `json:"generators,omitempty"`
}

// Recorded reports whether the environment was recorded at all (runs that
// never started have none).
func (e Environment) Recorded() bool {
	return e.Host != "" || e.OS != "" || e.CPUs != 0 || e.DockerVersion != "" || len(e.Engines) > 0
}

// Engine returns the environment of the engine a result ran on, or nil.
func (e Environment) Engine(name string) *EngineEnvironment {
	for i := range e.Engines {
		if e.Engines[i].Name == name {
			return &e.Engines[i]
		}
	}
	return nil
}

// EngineEnvironment is an engine targets ran on, and its host.
type EngineEnvironment struct {
	Name    string `json:"name"`
	Remote  bool   `json:"remote,omitempty"`
	Address string `json:"address,omitempty"` // where its targets were reached
	Machine
	// TargetCPUSet is the CPUs of that host its targets were pinned to;
	// empty for any (a remote host's CPUs are all the targets').
	TargetCPUSet string `json:"targetCpuset,omitempty"`
}

// TargetResult is what one target did in a run: in one case (its settings)
// and one round (of spec.repeat).
type TargetResult struct {
	Target string `json:"target"`           // the catalog reference, e.g. java-virtual@21
	Case   string `json:"case,omitempty"`   // the spec's case; empty when the spec has none
	Round  int    `json:"round,omitempty"`  // from 0
	Engine string `json:"engine,omitempty"` // the engine it ran on; empty for runs before engines

	Status    TargetStatus      `json:"status"`
	Error     string            `json:"error,omitempty"`
	Image     ImageInfo         `json:"image"`
	Limits    Limits            `json:"limits"`
	CPUSet    string            `json:"cpuset,omitempty"`
	Settings  map[string]string `json:"settings,omitempty"`
	StartupMs float64           `json:"startupMs,omitempty"`
	Warmup    *StageResult      `json:"warmup,omitempty"`
	// WarmupSteady is how a warm-up until steady ended; nil for a fixed one.
	WarmupSteady *WarmupSteady    `json:"warmupSteady,omitempty"`
	Stages       []StageResult    `json:"stages,omitempty"`
	Total        *Stats           `json:"total,omitempty"`
	Seconds      []Bucket         `json:"seconds,omitempty"`
	Requests     []NamedStats     `json:"requests,omitempty"` // the whole attack per request, when the workload mixes several
	Resources    []StageResources `json:"resources,omitempty"`
	// DownstreamResources are the downstream service's, during this
	// target's attack: the flood the target sent it.
	DownstreamResources []StageResources `json:"downstreamResources,omitempty"`
	// Database is the run's database server's figures during this
	// target's attack, per stage.
	Database []DatabaseStage `json:"database,omitempty"`
	Series   []string        `json:"series,omitempty"`
	// Generators are the load generators that sent the attack together
	// (a swarm's), each with its share, clock and own figures; empty when
	// one process sent it.
	Generators []GeneratorResult `json:"generators,omitempty"`
	// Capacity is what a capacity search found, in a run that asked for one.
	Capacity *CapacityResult `json:"capacity,omitempty"`
	// Inside is what recorded inside the target and why each stage ran
	// as it did; nil for runs from before threadbench recorded.
	Inside     *Inside    `json:"inside,omitempty"`
	StartedAt  *time.Time `json:"startedAt,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
}

// ImageInfo describes the image a target ran from and the runtime inside it.
type ImageInfo struct {
	Ref       string `json:"ref,omitempty"`
	ID        string `json:"id,omitempty"`
	BaseImage string `json:"baseImage,omitempty"`
	Runtime   string `json:"runtime,omitempty"` // e.g. "go1.26.8", "OpenJDK 25.0.3+9"
	Cached    bool   `json:"cached"`
}

// StageResult is one stage of a profile as measured.
type StageResult struct {
	Index       int      `json:"index"`
	Name        string   `json:"name,omitempty"`
	Model       Model    `json:"model"`
	Warmup      bool     `json:"warmup,omitempty"`
	StartOffset Duration `json:"startOffset"` // from t=0, the first measured request
	Duration    Duration `json:"duration"`
	Rate        float64  `json:"rate,omitempty"`        // open: scheduled rate at the end of the stage
	Concurrency int      `json:"concurrency,omitempty"` // closed: clients in flight
	Stats       Stats    `json:"stats"`
	// Requests are the stage's figures per request of the workload, when it
	// has more than one.
	Requests []NamedStats `json:"requests,omitempty"`
	// Generator is what the load generator did to itself during the stage.
	Generator *Generator `json:"generator,omitempty"`
	// Flags say why the stage's figures may not be the target's alone.
	Flags []Flag `json:"flags,omitempty"`
	// Died says how the target died in the stage (a crash, running out of
	// memory, with its last log line), empty when it did not. A capacity
	// search's trial so is a failure, and the target is started again
	// before the next one.
	Died string `json:"died,omitempty"`
}

// Bucket is one second of an attack.
type Bucket struct {
	Second int   `json:"second"` // seconds since t=0
	Stage  int   `json:"stage"`  // index of the stage it fell in
	Stats  Stats `json:"stats"`
	// Scheduled is, in the open model, how many requests the schedule asked
	// for in this second: Stats.Requests well below it means the load
	// generator fell behind (offered < scheduled). 0 in the closed model.
	Scheduled float64 `json:"scheduled,omitempty"`
	// Generator is what the load generator did to itself in this second.
	Generator *Generator `json:"generator,omitempty"`
}

// Stats summarises a window of an attack (a stage, a second, the whole).
//
// Requests, Successes, errors and latencies are of the requests sent in
// the window (by their scheduled send time in the open model), wherever
// they completed. Completed counts the successful responses that arrived
// within the window, whenever sent: Throughput is Completed / Elapsed, so
// that it can never exceed what the target can physically serve in the
// window (Little's law). Bytes are on the wire, headers included, in the
// window.
//
// CompletedSpread, kept for seconds only, counts each successful response
// in every second it was in flight in (sent to done), by the share of its
// flight time that fell there; seconds add up exactly. A second's
// Completed aliases when closed clients keep in step on a cycle that is
// not a whole fraction of a second (400 clients on 501.5 ms: 800 a
// second, then 775 when their bunch straddles a boundary); a rate from
// CompletedSpread does not, so it is what the steady-state test and a hold
// stage's figures read (steady.Rate).
//
// In the open model Latency runs from the time the schedule said the
// request should leave (coordinated omission corrected, as wrk2 does) and
// ServiceTime from when it actually left; in the closed model they are the
// same and ServiceTime is left out. Histogram (and ServiceHistogram) are the
// encoded HDR histograms in microseconds, kept so that comparisons can merge
// windows and recompute percentiles.
type Stats struct {
	Requests         int64            `json:"requests"`
	Successes        int64            `json:"successes"`
	Completed        int64            `json:"completed"`
	CompletedSpread  float64          `json:"completedSpread,omitempty"` // seconds only: Completed spread over each response's flight
	Dropped          int64            `json:"dropped,omitempty"`         // open model: not sent, already later than the request timeout
	OfferedRate      float64          `json:"offeredRate"`               // requests sent per second
	Throughput       float64          `json:"throughput"`                // successful responses completed per second
	Iterations       int64            `json:"iterations,omitempty"`      // iterations completed in the window (closed model with an iteration)
	IterationRate    float64          `json:"iterationRate,omitempty"`   // iterations completed per second
	Elapsed          Duration         `json:"elapsed"`
	StatusCodes      map[string]int64 `json:"statusCodes,omitempty"`
	Errors           []ErrorCount     `json:"errors,omitempty"`
	BytesIn          int64            `json:"bytesIn"`
	BytesOut         int64            `json:"bytesOut"`
	Latency          Latency          `json:"latency"`
	Histogram        string           `json:"histogram,omitempty"`
	ServiceTime      *Latency         `json:"serviceTime,omitempty"`
	ServiceHistogram string           `json:"serviceHistogram,omitempty"`
	// Fanout sums the fan-out responses' own accounts of their calls.
	Fanout *FanoutStats `json:"fanout,omitempty"`
}

// SetRates derives the offered rate (requests sent), the throughput
// (successful responses completed) and the iteration rate per second of
// the window's Elapsed.
func (s *Stats) SetRates() {
	s.OfferedRate, s.Throughput, s.IterationRate = 0, 0, 0
	if secs := s.Elapsed.D().Seconds(); secs > 0 {
		s.OfferedRate = float64(s.Requests) / secs
		s.Throughput = float64(s.Completed) / secs
		s.IterationRate = float64(s.Iterations) / secs
	}
}

// NamedStats are the figures of one request of a workload ("heavy?duration=500").
type NamedStats struct {
	Name  string `json:"name"`
	Stats Stats  `json:"stats"`
}

// SuccessRatio returns successes / requests, or 0 with no requests.
func (s Stats) SuccessRatio() float64 {
	if s.Requests == 0 {
		return 0
	}
	return float64(s.Successes) / float64(s.Requests)
}

// ErrorCount is one distinct error message and how often it happened.
type ErrorCount struct {
	Message string `json:"message"`
	Count   int64  `json:"count"`
}

// Latency is a latency distribution in milliseconds.
type Latency struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// RunFilter selects runs from the history. Zero fields do not filter.
type RunFilter struct {
	Status []RunStatus
	Target string
	Name   string
	// Labels are labels a run must carry, each with its value.
	Labels map[string]string
	Since  *time.Time
	Until  *time.Time
	Limit  int    // at most this many; 0 means the store's default
	Cursor string // opaque, from a previous page
}

// RunStore keeps run history. Implementations must be safe for concurrent
// use. Find methods return an ENOTFOUND *Error for unknown IDs.
type RunStore interface {
	// CreateRun stores a new run; it sets ID and CreatedAt when empty.
	CreateRun(ctx context.Context, run *Run) error
	// UpdateRun replaces the stored run with the same ID.
	UpdateRun(ctx context.Context, run *Run) error
	// FindRunByID returns the full run document.
	FindRunByID(ctx context.Context, id string) (*Run, error)
	// FindRunSummaries returns the summaries of matching runs newest first,
	// never their whole documents, and a cursor for the next page ("" when
	// there is none).
	FindRunSummaries(ctx context.Context, filter RunFilter) ([]RunSummary, string, error)
	// DeleteRun removes a finished run; ECONFLICT if it is not finished.
	DeleteRun(ctx context.Context, id string) error
}

// Key identifies a result within its run: its case (or target), with "#2",
// "#3"... for the rounds after the first.
func (t TargetResult) Key() string {
	key := t.Target
	if t.Case != "" {
		key = t.Case
	}
	if t.Round > 0 {
		key += "#" + strconv.Itoa(t.Round+1)
	}
	return key
}

// Label is the result's case, or its target: what rounds have in common.
func (t TargetResult) Label() string {
	if t.Case != "" {
		return t.Case
	}
	return t.Target
}

// WarmupSteady is how one target's warm-up until steady ended: after
// Seconds, either Steady (over the last Window seconds throughput and p50
// passed the test a stage's seconds are put to, and a JVM's compiler was
// quiet) or at its maximum, saying which test failed on the last window:
// Figure still moving by Trend percent per second, a Transient still to
// cut at one of its ends, or the JIT busy (JITBusy; JITMsWindow is what it
// compiled over the last JITWindow of wall time, the window or longer
// after a compilation longer than it, nil when its time could not be read
// over all of it). JITMs is the JVM's compilation time during the warm-up
// and JITMsMeasured during the measured profile, from
// Micrometer's jvm_compilation_time_ms_total, when the target exposes it:
// a JIT still compiling in the measured part is a sign it was not warm.
// It adds up the compiler threads' time, so it may exceed the wall-clock
// length of the warm-up.
type WarmupSteady struct {
	Seconds       float64  `json:"seconds"`
	Steady        bool     `json:"steady"`
	MaxDuration   Duration `json:"maxDuration"`
	Figure        string   `json:"figure,omitempty"`
	Trend         float64  `json:"trend,omitempty"`
	Window        Duration `json:"window,omitempty"`
	Transient     bool     `json:"transient,omitempty"`
	JITBusy       bool     `json:"jitBusy,omitempty"`
	JITMsWindow   *float64 `json:"jitMsWindow,omitempty"`
	JITWindow     Duration `json:"jitWindow,omitempty"`
	JITMs         *float64 `json:"jitMs,omitempty"`
	JITMsMeasured *float64 `json:"jitMsMeasured,omitempty"`
}

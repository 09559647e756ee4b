package bench

import (
	"context"
	"io"
	"time"
)

// The ports of a run: what the runner needs from the container engine, the
// load generator and the metrics recorder. internal/targets, internal/load
// and internal/metrics implement them; tests use hand-written fakes.

// TargetRuntime builds and starts targets on the configured container
// engines, which it knows by name (EngineLocal and the operator's).
type TargetRuntime interface {
	// Build builds (or finds cached) the image of a target, named as in a
	// spec (a catalog name, optionally with "@variant"), on the engine
	// spec.Engine names.
	Build(ctx context.Context, target string, spec RunSpec, log io.Writer) (ImageInfo, error)
	// Start starts the target on req.Engine and returns once it is healthy.
	Start(ctx context.Context, target string, img ImageInfo, req StartRequest) (Target, error)
	// Cleanup removes the containers earlier runs of this program left
	// behind, on every engine; an engine that does not answer is an error.
	Cleanup(ctx context.Context) (int, error)
	// Engine describes a container engine and its host, for the run's
	// environment.
	Engine(ctx context.Context, name string) (EngineInfo, error)
}

// StartRequest is how a target is started: identically for every target of
// a run, but for what its catalog entry adds.
type StartRequest struct {
	RunID string
	// Engine is the configured engine the target runs on; empty means
	// EngineLocal.
	Engine string
	Limits Limits
	CPUSet string      // CPUs the target may use, e.g. "1"; empty for any
	Java   JavaOptions // applies to Java targets only
	// Downstream is the base URL of the run's downstream service, handed
	// to the target as DOWNSTREAM_URL; empty without one.
	Downstream string
	// Database is the run's database server's environment for the target
	// (DatabaseConn.Env): the contract's DB_* variables and a service's
	// datasource ones; nil without a database.
	Database map[string]string
	// Workers bounds the requests the target serves at once (a downstream
	// service's pool); 0 keeps its own default.
	Workers int
	// Requests are the workload's requests: a target of one's own (which
	// serves no contract) is checked by sending each once, and the first
	// stands for its readiness where it has no health path.
	Requests []Request
	// Record starts what records inside the target: a JVM's flight
	// recording (a Go target's CPU profiles need nothing at start).
	Record bool
	// NoThreadSamples leaves the thread sampler out of a recorded JVM
	// (RunSpec.NoThreadSamples).
	NoThreadSamples bool
}

// EngineInfo describes a container engine and the host it runs on.
type EngineInfo struct {
	Name string // as configured: EngineLocal, "lab"
	// Remote is true for an engine on another host than the orchestrator's,
	// whose targets are reached at Address rather than on loopback.
	Remote  bool
	Address string // where its targets are reached, e.g. "127.0.0.1"
	// Machine is the host as the engine reports it; the engine API names
	// no CPU model.
	Machine
	APIVersion string // negotiated, e.g. "1.41"
}

// ContainerState is what the engine says about a target's container.
type ContainerState struct {
	Running   bool
	OOMKilled bool
	ExitCode  int
}

// Target is a started, healthy target.
type Target interface {
	// Entry describes the catalog entry the target was started from.
	Entry() TargetInfo
	BaseURL() string
	MetricsURL() string
	ContainerID() string
	// Startup is the time from container start to the first healthy answer.
	Startup() time.Duration
	// Settings says how the target runs: image, limits, cpuset, flags...
	Settings() map[string]string
	// Check is the quick contract check made before an attack.
	Check(ctx context.Context) error
	// Info is what the target reports about itself at GET /info, flattened
	// to strings ("knobs.GOMAXPROCS").
	Info(ctx context.Context) (map[string]string, error)
	State(ctx context.Context) (ContainerState, error)
	Logs(ctx context.Context, tail int) (string, error)
	Stop(ctx context.Context) error
}

// Plan is what one attack sends: the workload, under the profile, after the
// warm-up.
type Plan struct {
	Workload Workload
	Profile  Profile
	Warmup   Warmup
	// Settled, with Warmup.UntilSteady, is asked after each full second of
	// the warm-up (Second counts from the attack's start, Stage is -1)
	// whether the target has settled. The first true ends the warm-up then:
	// the profile starts at once with the same clients and connections,
	// nothing cancelled and no request abandoned. Without it, or while it
	// says false, the warm-up runs to Warmup.MaxDuration. It is called from
	// the attack's own goroutine and must not block for long.
	Settled func(Bucket) bool
	// Share is the part of the plan this attack sends when several load
	// generators send it together; the zero value is the whole plan. Plan.
	// ShareOf sets it with the stages' shares.
	Share Share
	// Start, when set, is asked once the engine has made its connections
	// and workers when the attack's clock starts (t=0, the warm-up's
	// start); it may wait meanwhile (for other generators to be ready
	// too). The engine then waits for that time. An error, or a time
	// already past when it is answered, stops the attack before anything
	// is sent: generators that start together must all start at the time
	// they agreed on. Without it the clock starts as soon as the engine is
	// ready.
	Start func(ctx context.Context) (time.Time, error)
}

// Observer receives an attack's progress. Every field is optional; the
// functions must not block for long.
type Observer struct {
	Stage  func(StageResult) // a stage (or the warm-up, Warmup=true) starts; Stats empty
	Second func(Bucket)      // one second finished (measured seconds only)
	Start  func(t0 time.Time)
	// Response receives every measured request (not the warm-up's) as it
	// comes back, from the sending goroutine: it must be quick.
	Response func(Response)
}

// Response is one measured request as the load engine saw it, in the terms
// of vegeta's results (bench keeps none of them; a results file does).
type Response struct {
	Seq       uint64
	Method    string
	URL       string
	Timestamp time.Time     // when latency runs from: the scheduled send (own engine, open model) or the actual one
	Latency   time.Duration // to the end of the response, or the failure
	Code      int           // 0 without a response
	Error     string
	BytesIn   int64 // the response body
	BytesOut  int64 // the request body
}

// ResponseLog keeps the measured requests of runs, per run and target (a
// results file each).
type ResponseLog interface {
	// Open starts the log of one target of a run of spec, the target named
	// as in the run's results.
	Open(spec RunSpec, target string) (ResponseWriter, error)
}

// ResponseWriter is one target's log of responses.
type ResponseWriter interface {
	Write(Response)
	Close() error
}

// AttackResult is what an attack measured. The warm-up is kept apart and
// excluded from Total and Seconds.
type AttackResult struct {
	T0       time.Time
	Warmup   *StageResult
	Stages   []StageResult
	Total    Stats
	Requests []NamedStats // the whole attack per request, when the workload has several
	Seconds  []Bucket
	// Generators are the load generators' own parts, when several sent the
	// attack; empty for one.
	Generators []GeneratorResult
}

// Attacker runs a load plan against a target's base URL.
type Attacker interface {
	Run(ctx context.Context, baseURL string, plan Plan, obs Observer) (*AttackResult, error)
}

// Recorder samples a target's metrics and container stats while it is
// under attack.
type Recorder interface {
	// Record starts sampling t now (warm-up included); limits are the
	// target's, for CPU use as a share of its limit.
	Record(ctx context.Context, t Target, limits Limits) Recording
}

// Recording is one target's sampling in progress.
type Recording interface {
	// SetT0 sets the attack clock's zero: the first measured request.
	SetT0(t0 time.Time)
	// Latest is the latest sample of a curated series (summed over its
	// labels) and when it was taken; false before one was. A warm-up reads
	// a JVM's compilation time through it while it runs.
	Latest(name string) (at time.Time, value float64, ok bool)
	// Stop ends sampling and summarises it per stage, given the stages as
	// measured (the warm-up first when not nil).
	Stop(ctx context.Context, warmup *StageResult, stages []StageResult) RecordingResult
}

// RecordingResult is what a Recording kept.
type RecordingResult struct {
	Series         []Series
	Expositions    []Exposition
	Resources      []StageResources
	ScrapeFailures int    // scrapes that failed
	StatsFailures  int    // container stats reads that failed
	LastError      string // the last failure, for a warning
}

// Builtins are the profiles and experiments a spec may name rather than
// write out: Prepare resolves such a name through them. Package builtin
// holds threadbench's own.
type Builtins interface {
	// LookupProfile returns the named profile with its stage durations
	// multiplied by scale (0: the profile's default scale): an ENOTFOUND
	// *Error listing the names for an unknown profile, EINVALID for a
	// negative or non-finite scale.
	LookupProfile(name string, scale float64) (Profile, error)
	// ProfileNames returns the profiles' names, in the order they are listed.
	ProfileNames() []string
	// LookupExperiment returns the named experiment, or an ENOTFOUND *Error
	// listing the names.
	LookupExperiment(name string) (Experiment, error)
}

package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Stage is one step of a profile. In an open profile Rate is the arrival rate
// in requests per second; in a closed profile Concurrency is the number of
// requests kept in flight. With Ramp the stage moves linearly from the
// previous stage's value (0 before the first stage) to its own; without it
// the stage holds its value.
type Stage struct {
	Name        string   `json:"name,omitempty" yaml:"name,omitempty"`
	Duration    Duration `json:"duration" yaml:"duration"`
	Rate        float64  `json:"rate,omitempty" yaml:"rate,omitempty"`
	Concurrency int      `json:"concurrency,omitempty" yaml:"concurrency,omitempty"`
	Ramp        bool     `json:"ramp,omitempty" yaml:"ramp,omitempty"`
}

// Profile is a named list of stages under one load model. Scale multiplies
// every stage duration of a built-in profile (0 means its default). Workload,
// on a built-in profile, is the request mix used when a spec names none.
type Profile struct {
	Name        string    `json:"name,omitempty" yaml:"name,omitempty"`
	Description string    `json:"description,omitempty" yaml:"description,omitempty"`
	Model       Model     `json:"model,omitempty" yaml:"model,omitempty"`
	Scale       float64   `json:"scale,omitempty" yaml:"scale,omitempty"`
	Stages      []Stage   `json:"stages,omitempty" yaml:"stages,omitempty"`
	Workload    *Workload `json:"workload,omitempty" yaml:"workload,omitempty"`
	// Connections, in the open model, is how many connections the load
	// generator sends from at most; 0 sizes them from the highest rate and
	// the slowest request. A request due while all are busy waits for one,
	// and its latency, from its scheduled time, includes the wait.
	Connections int `json:"connections,omitempty" yaml:"connections,omitempty"`
	// Engine is the load engine that sends the profile: empty or
	// LoadEngineOwn for threadbench's own, LoadEngineVegeta for vegeta's
	// attacker (open profiles, and closed ones that hold each stage).
	Engine string `json:"engine,omitempty" yaml:"engine,omitempty"`
}

// Load engines a profile may name.
const (
	LoadEngineOwn    = "threadbench"
	LoadEngineVegeta = "vegeta"
)

// UnmarshalJSON accepts either a profile object or the bare name of a
// built-in profile ("smoke"), which is resolved when the spec is validated.
func (p *Profile) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err == nil {
		*p = Profile{Name: name}
		return nil
	}
	type plain Profile
	var v plain
	if err := strictUnmarshal(b, &v); err != nil {
		return err
	}
	*p = Profile(v)
	return nil
}

// Request is one kind of request in a workload: a contract endpoint
// ("heavy", "light", "cpu", "native", "synchronized") with its query
// parameters, drawn with probability Weight / sum of weights.
type Request struct {
	// Name labels the request in per-request figures; empty means its
	// endpoint and parameters ("heavy?duration=500").
	Name     string            `json:"name,omitempty" yaml:"name,omitempty"`
	Endpoint string            `json:"endpoint,omitempty" yaml:"endpoint,omitempty"`
	Params   map[string]string `json:"params,omitempty" yaml:"params,omitempty"`
	Weight   int               `json:"weight,omitempty" yaml:"weight,omitempty"`
	// URI, instead of Endpoint and Params, is a request of the user's own
	// (as a vegeta targets file gives it): its path and query
	// ("/orders?id=1"), sent to the target's host with Method (GET when
	// empty), Header and Body.
	URI    string              `json:"uri,omitempty" yaml:"uri,omitempty"`
	Method string              `json:"method,omitempty" yaml:"method,omitempty"`
	Header map[string][]string `json:"header,omitempty" yaml:"header,omitempty"`
	Body   string              `json:"body,omitempty" yaml:"body,omitempty"`
	// Expect lists the status codes that count as success; empty means
	// any 2xx or 3xx.
	Expect []int `json:"expect,omitempty" yaml:"expect,omitempty"`
}

// Succeeded reports whether a response status counts as the request's
// success: one of Expect, or without Expect any 2xx or 3xx (0, no
// response, never does).
func (r Request) Succeeded(code int) bool {
	if len(r.Expect) > 0 {
		return slices.Contains(r.Expect, code)
	}
	return code >= 200 && code < 400
}

// Path returns the request's path and query, e.g. "/api/heavy?duration=500",
// with parameters in sorted order, or its URI.
func (r Request) Path() string {
	if r.URI != "" {
		return r.URI
	}
	return EndpointPath(r.Endpoint, r.Params)
}

// HTTPMethod returns the request's method: its Method, else GET.
func (r Request) HTTPMethod() string {
	if r.Method == "" {
		return "GET"
	}
	return r.Method
}

// Label names the request in per-request figures: its Name, else its
// endpoint and parameters, "heavy?duration=500", or its method and URI,
// "POST /orders".
func (r Request) Label() string {
	switch {
	case r.Name != "":
		return r.Name
	case r.URI != "":
		return r.HTTPMethod() + " " + r.URI
	}
	return strings.TrimPrefix(r.Path(), "/api/")
}

// Workload is what each request of an attack asks the target: a weighted
// mix of Requests, or, in the closed model, an Iteration each client
// repeats, as k6's default function and nGrinder's test loop do.
type Workload struct {
	Requests  []Request `json:"requests,omitempty" yaml:"requests,omitempty"`
	Iteration []Step    `json:"iteration,omitempty" yaml:"iteration,omitempty"`
	Timeout   Duration  `json:"timeout,omitempty" yaml:"timeout,omitempty"`
}

// Step is one step of an iteration: a request, or a sleep (think time,
// which is never latency).
type Step struct {
	Request *Request `json:"request,omitempty" yaml:"request,omitempty"`
	Sleep   *Sleep   `json:"sleep,omitempty" yaml:"sleep,omitempty"`
}

// Sleep is a think time: Min exactly, or uniformly from Min to Max. Written
// as a duration ("100ms") or as {min, max}.
type Sleep struct {
	Min Duration `json:"min" yaml:"min"`
	Max Duration `json:"max,omitempty" yaml:"max,omitempty"`
}

// DecodeText reads a fixed sleep written as a duration.
func (s *Sleep) DecodeText(text string) error {
	var d Duration
	if err := d.parse(text); err != nil {
		return err
	}
	*s = Sleep{Min: d}
	return nil
}

// IterationRequests returns the requests of a workload's iteration, in
// step order, once each by label.
func (w Workload) IterationRequests() []Request {
	var reqs []Request
	for _, st := range w.Iteration {
		if st.Request != nil && !slices.ContainsFunc(reqs, func(r Request) bool { return r.Label() == st.Request.Label() }) {
			reqs = append(reqs, *st.Request)
		}
	}
	return reqs
}

// AllRequests returns every request a workload sends: its mix's, then
// its iteration's.
func (w Workload) AllRequests() []Request {
	return append(slices.Clone(w.Requests), w.IterationRequests()...)
}

// Warmup is load sent before the measured profile whose results are kept
// apart and excluded from every summary: the JVM's JIT needs it, and the Go
// target gets the same so the comparison stays fair. By default it is a
// fixed Duration at a low open-model Rate. UntilSteady instead sends the
// load of the first measured stage (SteadyStage) until throughput and p50
// stop trending over the last Window seconds and a JVM's compiler has gone
// quiet, for at most MaxDuration: each target warms up for as long as it
// needs, and the profile then starts at once in the same attack, with the
// same clients and connections.
type Warmup struct {
	Disabled    bool     `json:"disabled,omitempty" yaml:"disabled,omitempty"`
	Duration    Duration `json:"duration,omitempty" yaml:"duration,omitempty"`
	Rate        float64  `json:"rate,omitempty" yaml:"rate,omitempty"`
	UntilSteady bool     `json:"untilSteady,omitempty" yaml:"untilSteady,omitempty"`
	MaxDuration Duration `json:"maxDuration,omitempty" yaml:"maxDuration,omitempty"`
	Window      Duration `json:"window,omitempty" yaml:"window,omitempty"`
	// Fraction scales the first stage's load a warm-up until steady runs
	// at (its rate, or its clients rounded, at least one); 0 means 1.
	Fraction float64 `json:"fraction,omitempty" yaml:"fraction,omitempty"`
}

// WarmupName is the name a warm-up's stage carries in results.
const WarmupName = "warm-up"

// SteadyStage is the load a warm-up until steady sends: the profile's first
// stage (its end load when it is a ramp), scaled by Fraction (0 for all of
// it: a rate never below MinRate, clients rounded and at least one), held
// for MaxDuration.
func (w Warmup) SteadyStage(p Profile) Stage {
	first := p.Stages[0]
	first.Name, first.Ramp, first.Duration = WarmupName, false, w.MaxDuration
	if w.Fraction > 0 && w.Fraction < 1 {
		if first.Rate > 0 {
			first.Rate = max(first.Rate*w.Fraction, MinRate)
		}
		if first.Concurrency > 0 {
			first.Concurrency = max(int(math.Round(float64(first.Concurrency)*w.Fraction)), 1)
		}
	}
	return first
}

// Defaults and limits of a warm-up until steady.
const (
	DefaultWarmupMaxDuration = Duration(120e9)
	DefaultWarmupWindow      = Duration(10e9) // the shortest default window (stageWindow)
	MinWarmupWindow          = Duration(5e9)  // the shortest series a transient detector judges
)

// stageWindow is the window of a warm-up until steady that names none: as
// long as the first measured stage, so that the warm-up ends on the test
// that stage's seconds are then put to, over as many seconds. A shorter
// window has less power against a slow drift: the orders service on
// virtual threads passed over 10 s and its p50 then moved by half over its
// 30 s stage (issue 34). It is at least DefaultWarmupWindow, and at most
// half the maximum (when that is longer than DefaultWarmupWindow), which
// leaves the other half for the warm-up to settle in.
func (w Warmup) stageWindow(p Profile) Duration {
	win := DefaultWarmupWindow
	if len(p.Stages) > 0 && p.Stages[0].Duration > win {
		win = min(p.Stages[0].Duration, max(w.MaxDuration/2, DefaultWarmupWindow))
	}
	return win
}

// Planned is how long the warm-up may last: its duration, its maximum when
// it runs until steady, 0 when disabled.
func (w Warmup) Planned() Duration {
	switch {
	case w.Disabled:
		return 0
	case w.UntilSteady:
		return w.MaxDuration
	}
	return w.Duration
}

// Limits are the resources every target of a run gets, identically.
type Limits struct {
	CPUs      float64 `json:"cpus,omitempty" yaml:"cpus,omitempty"`
	MemoryMiB int64   `json:"memoryMiB,omitempty" yaml:"memoryMiB,omitempty"`
}

// JavaOptions are the knobs of the Java targets. Both Java targets get the
// same values; only the thread model differs between them.
type JavaOptions struct {
	TomcatMaxThreads   int     `json:"tomcatMaxThreads,omitempty" yaml:"tomcatMaxThreads,omitempty"`
	VirtualParallelism int     `json:"virtualParallelism,omitempty" yaml:"virtualParallelism,omitempty"`
	HeapPercent        float64 `json:"heapPercent,omitempty" yaml:"heapPercent,omitempty"`
	GC                 string  `json:"gc,omitempty" yaml:"gc,omitempty"`
	// JDK is the Java major the Java targets run on unless a target names
	// one ("java-virtual@21"); 0 means each target's default.
	JDK int `json:"jdk,omitempty" yaml:"jdk,omitempty"`
	// SpringBoot is the Spring Boot line ("3.5") the Java targets built on
	// several run on unless a target names one ("java-virtual@boot=4.1"):
	// Prepare writes it into their references. Empty: each one's default.
	SpringBoot string `json:"springBoot,omitempty" yaml:"springBoot,omitempty"`
	BaseImage  string `json:"baseImage,omitempty" yaml:"baseImage,omitempty"`
}

// Case is one arm of a run: a target under settings of its own, which
// replace the spec's for it (Java options field by field, the workload
// whole). Experiments are made of cases.
type Case struct {
	Name     string       `json:"name" yaml:"name"`
	Target   string       `json:"target" yaml:"target"`
	Java     *JavaOptions `json:"java,omitempty" yaml:"java,omitempty"`
	Workload *Workload    `json:"workload,omitempty" yaml:"workload,omitempty"`
	// Engine places the case on a configured engine other than the run's.
	Engine string `json:"engine,omitempty" yaml:"engine,omitempty"`
	// NoProfile, when set, replaces the spec's for the case: a case of the
	// same target with it set measures what recording costs.
	NoProfile *bool `json:"noProfile,omitempty" yaml:"noProfile,omitempty"`
	// NoThreadSamples, when set, replaces the spec's for the case: a case
	// of the same target with it set measures what the dumps cost.
	NoThreadSamples *bool `json:"noThreadSamples,omitempty" yaml:"noThreadSamples,omitempty"`
}

// RunSpec is everything a run needs: which targets (or cases), in which
// order, under which load and limits, how many rounds.
type RunSpec struct {
	Name     string      `json:"name,omitempty" yaml:"name,omitempty"`
	Targets  []string    `json:"targets" yaml:"targets"`
	Cases    []Case      `json:"cases,omitempty" yaml:"cases,omitempty"`
	Repeat   int         `json:"repeat,omitempty" yaml:"repeat,omitempty"` // rounds, targets interleaved; 0 means 1
	Profile  Profile     `json:"profile" yaml:"profile"`
	Workload Workload    `json:"workload" yaml:"workload"`
	Warmup   Warmup      `json:"warmup,omitempty" yaml:"warmup,omitempty"`
	Limits   Limits      `json:"limits,omitempty" yaml:"limits,omitempty"`
	Java     JavaOptions `json:"java,omitempty" yaml:"java,omitempty"`
	// Downstream is a service the targets call, started before them.
	Downstream *Downstream `json:"downstream,omitempty" yaml:"downstream,omitempty"`
	// Database is a database server the targets use, started before them.
	Database *Database `json:"database,omitempty" yaml:"database,omitempty"`
	// Engine is the configured engine (by name, never by address) the
	// targets run on unless a case names another; empty means the
	// configuration's default, which Prepare fills in.
	Engine string `json:"engine,omitempty" yaml:"engine,omitempty"`
	// Experiment names a built-in experiment (a seed's), which Prepare
	// expands into the fields above; the stored spec keeps it, resolved.
	Experiment *ExperimentRef `json:"experiment,omitempty" yaml:"experiment,omitempty"`
	// Capacity, when set, makes the run a capacity search: the profile's
	// stages give way to the trials the search asks for.
	Capacity *CapacitySpec `json:"capacity,omitempty" yaml:"capacity,omitempty"`
	// NoProfile turns off what records inside the targets: a JVM's flight
	// recording, a Go service's CPU profiles. A case may set it for itself.
	NoProfile bool `json:"noProfile,omitempty" yaml:"noProfile,omitempty"`
	// NoThreadSamples leaves the thread sampler out of the recorded JVMs
	// (internal/threaddump): they record JFR alone, and virtual threads'
	// waits go unseen. A case may set it for itself.
	NoThreadSamples bool `json:"noThreadSamples,omitempty" yaml:"noThreadSamples,omitempty"`
	// Labels are the user's own words about the run, stored with it, such
	// as the commit, branch and build of a CI job that made it: what a
	// check finds its baseline by (branch=main).
	Labels map[string]string `json:"labels,omitempty" yaml:"labels,omitempty"`
}

// Defaults applied by RunSpec.ApplyDefaults.
const (
	DefaultTimeout          = Duration(30e9)
	DefaultWarmupDuration   = Duration(10e9)
	DefaultWarmupRate       = 50.0
	DefaultCPUs             = 1.0
	DefaultMemoryMiB        = 1024
	DefaultTomcatMaxThreads = 200
	DefaultHeapPercent      = 50.0
)

// ApplyDefaults fills the fields a user may leave out. It does not resolve
// built-in profiles by name; the load package does that.
func (s *RunSpec) ApplyDefaults() {
	if s.Profile.Model == "" {
		s.Profile.Model = DefaultModel
	}
	s.Workload.ApplyDefaults()
	// A warm-up given neither a duration nor a rate runs until steady: a
	// fixed length would end some targets' warm-up (a JVM's JIT) before
	// it is over. A capacity search warms up at a fixed rate.
	if w := s.Warmup; !w.Disabled && w.Duration == 0 && w.Rate == 0 && s.Capacity == nil {
		s.Warmup.UntilSteady = true
	}
	if s.Warmup.UntilSteady && !s.Warmup.Disabled {
		if s.Warmup.MaxDuration == 0 {
			s.Warmup.MaxDuration = DefaultWarmupMaxDuration
		}
		if s.Warmup.Window == 0 {
			s.Warmup.Window = s.Warmup.stageWindow(s.Profile)
		}
	} else if !s.Warmup.Disabled {
		if s.Warmup.Duration == 0 {
			s.Warmup.Duration = DefaultWarmupDuration
		}
		if s.Warmup.Rate == 0 {
			s.Warmup.Rate = DefaultWarmupRate
		}
	}
	if s.Limits.CPUs == 0 {
		s.Limits.CPUs = DefaultCPUs
	}
	if s.Limits.MemoryMiB == 0 {
		s.Limits.MemoryMiB = DefaultMemoryMiB
	}
	if s.Java.TomcatMaxThreads == 0 {
		s.Java.TomcatMaxThreads = DefaultTomcatMaxThreads
	}
	if s.Java.HeapPercent == 0 {
		s.Java.HeapPercent = DefaultHeapPercent
	}
}

// ApplyDefaults gives requests their default weight and the workload its
// default timeout.
func (w *Workload) ApplyDefaults() {
	for i := range w.Requests {
		if w.Requests[i].Weight == 0 {
			w.Requests[i].Weight = 1
		}
	}
	if w.Timeout == 0 {
		w.Timeout = DefaultTimeout
	}
}

// Duration returns the length of the measured profile (warm-up excluded).
func (p Profile) Duration() Duration {
	var total Duration
	for _, st := range p.Stages {
		total += st.Duration
	}
	return total
}

func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	return nil
}

// RunCases returns the cases a run executes in each round, in order: the
// spec's own, or one per target, unnamed.
func (s RunSpec) RunCases() []Case {
	if len(s.Cases) > 0 {
		return s.Cases
	}
	cases := make([]Case, len(s.Targets))
	for i, t := range s.Targets {
		cases[i] = Case{Target: t}
	}
	return cases
}

// Rounds is how many times each case runs.
func (s RunSpec) Rounds() int { return max(s.Repeat, 1) }

// ForCase returns the spec a case runs under: the case's Java options
// replace the spec's field by field, its workload, its engine, its
// NoProfile and its NoThreadSamples replace the spec's.
func (s RunSpec) ForCase(c Case) RunSpec {
	out := s
	if c.Java != nil {
		out.Java = s.Java.With(*c.Java)
	}
	if c.Workload != nil {
		out.Workload = *c.Workload
	}
	out.Engine = s.EngineOf(c)
	if c.NoProfile != nil {
		out.NoProfile = *c.NoProfile
	}
	if c.NoThreadSamples != nil {
		out.NoThreadSamples = *c.NoThreadSamples
	}
	return out
}

// With returns j with every field o sets replacing j's.
func (j JavaOptions) With(o JavaOptions) JavaOptions {
	if o.TomcatMaxThreads != 0 {
		j.TomcatMaxThreads = o.TomcatMaxThreads
	}
	if o.VirtualParallelism != 0 {
		j.VirtualParallelism = o.VirtualParallelism
	}
	if o.HeapPercent != 0 {
		j.HeapPercent = o.HeapPercent
	}
	if o.GC != "" {
		j.GC = o.GC
	}
	if o.BaseImage != "" {
		j.BaseImage = o.BaseImage
	}
	if o.JDK != 0 {
		j.JDK = o.JDK
	}
	if o.SpringBoot != "" {
		j.SpringBoot = o.SpringBoot
	}
	return j
}

// Clone returns a copy of w that shares no slice or map with it (nil for
// nil), so that a built-in's workload handed out can be changed.
func (w *Workload) Clone() *Workload {
	if w == nil {
		return nil
	}
	c := *w
	c.Requests = CloneRequests(w.Requests)
	c.Iteration = CloneSteps(w.Iteration)
	return &c
}

func CloneSteps(steps []Step) []Step {
	if steps == nil {
		return nil
	}
	out := make([]Step, len(steps))
	for i, st := range steps {
		if st.Request != nil {
			r := CloneRequests([]Request{*st.Request})[0]
			st.Request = &r
		}
		if st.Sleep != nil {
			sl := *st.Sleep
			st.Sleep = &sl
		}
		out[i] = st
	}
	return out
}

func CloneRequests(reqs []Request) []Request {
	out := make([]Request, len(reqs))
	for i, r := range reqs {
		out[i] = r
		if r.Params != nil {
			out[i].Params = make(map[string]string, len(r.Params))
			maps.Copy(out[i].Params, r.Params)
		}
	}
	return out
}

package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ExperimentRef names a built-in experiment in a spec: a bare name
// ("seed-003") or {name, scale, part}. It is one object rather than
// top-level experiment and scale fields because a top-level scale would
// read as stretching any spec's profile, and seed 001 needs a third knob
// (which part: its callee's size); the bare name keeps
// {"experiment": "seed-003"} as short as a built-in profile's name.
type ExperimentRef struct {
	Name string `json:"name" yaml:"name"`
	// Scale stretches the experiment as its ScaleNote says; 0 means its
	// DefaultScale. Prepare records the scale it ran at.
	Scale float64 `json:"scale,omitempty" yaml:"scale,omitempty"`
	// Part picks one of the experiment's runs; "" means its first.
	Part string `json:"part,omitempty" yaml:"part,omitempty"`
	// Cases keeps only these of the part's cases (or targets, in an
	// experiment that runs targets), in the experiment's order; empty
	// means all. Its seed table leaves the others "not in this run".
	Cases []string `json:"cases,omitempty" yaml:"cases,omitempty"`
}

// DecodeText reads the bare-name form.
func (r *ExperimentRef) DecodeText(text string) error {
	*r = ExperimentRef{Name: text}
	return nil
}

// UnmarshalJSON accepts the bare name or the object.
func (r *ExperimentRef) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err == nil {
		*r = ExperimentRef{Name: name}
		return nil
	}
	type plain ExperimentRef
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = ExperimentRef(v)
	return nil
}

// Layouts of an experiment's result table: each seed's own.
const (
	LayoutK6       = "k6"       // seed 000: k6's summary, requests, req/s, iterations, relative to the best
	LayoutFanout   = "fanout"   // seed 001: time, succeeded, failed, success per fan-out mode, with threads and memory
	LayoutStages   = "stages"   // seed 001's service-level attack: error rate per stage and case
	LayoutNGrinder = "ngrinder" // seeds 002 and 004: TPS, peak TPS, MTT, error rate, vusers
	LayoutLocust   = "locust"   // seed 003: Locust's statistics table, with pinning
	LayoutPool     = "pool"     // db-pool: throughput per stage beside the pool's bound, and where requests waited
	LayoutCPU      = "cpu"      // cpu-bound: throughput, latency and CPU per request of each runtime, and the claim's ratios
	LayoutReactive = "reactive" // reactive: throughput, p99, OS threads and errors per stage, virtual threads beside WebFlux
)

// Figures a seed's table reports, as SeedRow.Seed keys them.
const (
	FigRequests        = "requests"        // requests made
	FigRate            = "rate"            // requests/s (k6 RPS, Locust req/s)
	FigIterations      = "iterations"      // iterations completed
	FigRelative        = "relative"        // throughput as a percentage of the best row's
	FigMin             = "min"             // latency, ms
	FigMean            = "mean"            // latency, ms
	FigMedian          = "median"          // latency, ms
	FigP90             = "p90"             // latency, ms
	FigP95             = "p95"             // latency, ms
	FigMax             = "max"             // latency, ms
	FigErrorRate       = "errorRate"       // percent of requests
	FigDataReceived    = "dataReceived"    // k6's data_received, MB (10^6 bytes) on the wire
	FigDataSent        = "dataSent"        // k6's data_sent, MB
	FigFails           = "fails"           // failed requests
	FigFailuresPerSec  = "failuresPerSec"  // failed requests per second
	FigTPS             = "tps"             // nGrinder's mean tests per second
	FigPeakTPS         = "peakTps"         // nGrinder's highest per-second TPS
	FigMTT             = "mtt"             // nGrinder's mean test time, ms
	FigVusers          = "vusers"          // virtual users
	FigTests           = "tests"           // tests executed
	FigSuccessfulTests = "successfulTests" // tests that succeeded
	FigSeconds         = "seconds"         // a fan-out's time
	FigSucceeded       = "succeeded"       // a fan-out's calls that succeeded
	FigFailed          = "failed"          // a fan-out's calls that failed
	FigSuccess         = "success"         // a fan-out's success, percent
	FigThreadsAdded    = "threadsAdded"    // live platform threads added during the fan-out
	FigStacksReserved  = "stacksReserved"  // NMT Thread reserved added, MiB
	FigStacksCommitted = "stacksCommitted" // NMT Thread committed added, MiB
)

// SeedRow is one row of a seed's own result table: its words for the row,
// the case (or target) of ours it corresponds to, and its figures (absent
// where the seed gives none).
type SeedRow struct {
	Label string             `json:"label"`
	Case  string             `json:"case"`
	Part  string             `json:"part,omitempty"` // the experiment part the row belongs to; "" for every part
	Seed  map[string]float64 `json:"seed,omitempty"`
}

// Experiment is a seed article's experiment, built in: what it
// reproduces, the run (or runs: Parts) it expands into at a scale, and
// the table its results are shown in, the seed's own figures beside ours.
type Experiment struct {
	Name        string  `json:"name"`
	Seed        string  `json:"seed"`   // the seed it reproduces: "003" for ../shared/seeds/003_*.txt
	Source      string  `json:"source"` // the article
	Description string  `json:"description"`
	Scale       float64 `json:"defaultScale"`
	// ScaleNote says what scale stretches, and what the default runs.
	ScaleNote string `json:"scaleNote"`
	// Parts are the runs the experiment takes, in order, when one run
	// cannot hold it (seed 001's two callee sizes: a run has one
	// downstream); empty for one run.
	Parts  []string  `json:"parts,omitempty"`
	Layout string    `json:"layout"`
	Rows   []SeedRow `json:"rows"`
	// Ratios are the throughput ratios, case A over case B, its table
	// writes beside the seed's (seed 000's virtual / go and platform / go).
	Ratios []TargetPair `json:"-"`
	// Notes say where the reproduction differs from the seed.
	Notes []string `json:"notes,omitempty"`
	// JDK is the Java major the seed ran, the Java targets' default in
	// its runs (a spec's java.jdk, or run --jdk, picks another); 0 when
	// the seed does not say, and the project's default runs. Targets the
	// experiment pins to a JDK (java-virtual@21) keep theirs.
	JDK int `json:"jdk,omitempty"`
	// SpringBoot is the Spring Boot version the seed says it ran ("3.2"),
	// "" when it does not say.
	SpringBoot string `json:"springBoot,omitempty"`
	// PinsJDK is set on an experiment whose every Java case names its JDK
	// (seed 003's java-virtual@21): a spec's java.jdk would change nothing,
	// and is refused.
	PinsJDK bool `json:"-"`
	// Expand builds the spec of a part at a scale, both resolved.
	Expand func(scale float64, part string) RunSpec `json:"-"`
}

// Spec returns the run spec of one part ("" for the first) at a scale (0
// for the default), as Prepare resolves it: every field the experiment
// sets, Experiment filled in, not yet checked or defaulted.
func (e Experiment) Spec(scale float64, part string) (RunSpec, error) {
	return e.SpecOf(ExperimentRef{Name: e.Name, Scale: scale, Part: part})
}

// SpecOf returns the run spec ref asks of e (ref names e).
func (e Experiment) SpecOf(ref ExperimentRef) (RunSpec, error) {
	if err := e.resolveRef(&ref); err != nil {
		return RunSpec{}, err
	}
	spec := e.Expand(ref.Scale, ref.Part)
	if err := keepCases(&spec, ref.Cases); err != nil {
		return RunSpec{}, FieldErrorf("experiment.cases", "experiment %s: %s", e.Name, ErrorMessage(err))
	}
	spec.Experiment = &ref
	return spec, nil
}

// keepCases narrows an expanded spec to the named cases (or targets, when
// it has no cases), keeping its order; every name must be one of them.
func keepCases(spec *RunSpec, names []string) error {
	if len(names) == 0 {
		return nil
	}
	var have []string
	for _, c := range spec.Cases {
		have = append(have, c.Name)
	}
	if len(spec.Cases) == 0 {
		have = spec.Targets
	}
	for _, n := range names {
		if !slices.Contains(have, n) {
			return Errorf(EINVALID, "no case %q (cases: %s)", n, strings.Join(have, ", "))
		}
	}
	if len(spec.Cases) == 0 {
		spec.Targets = slices.DeleteFunc(slices.Clone(spec.Targets), func(t string) bool { return !slices.Contains(names, t) })
		return nil
	}
	spec.Cases = slices.DeleteFunc(slices.Clone(spec.Cases), func(c Case) bool { return !slices.Contains(names, c.Name) })
	return nil
}

// RowsOf returns the seed's rows for one part of the experiment.
func (e Experiment) RowsOf(part string) []SeedRow {
	var rows []SeedRow
	for _, r := range e.Rows {
		if r.Part == "" || r.Part == part {
			rows = append(rows, r)
		}
	}
	return rows
}

// MaxExperimentScale bounds an experiment's scale: at 10 the longest
// experiment attacks each case for an hour and a half.
const MaxExperimentScale = 10

// resolveRef checks ref against e and fills in the default scale and part.
func (e Experiment) resolveRef(ref *ExperimentRef) error {
	if s := ref.Scale; s < 0 || s > MaxExperimentScale || math.IsNaN(s) {
		return FieldErrorf("experiment.scale", "must be above 0 and at most %d (0 for the experiment's default, %g), got %g", MaxExperimentScale, e.Scale, s)
	}
	if ref.Scale == 0 {
		ref.Scale = e.Scale
	}
	switch {
	case ref.Part == "" && len(e.Parts) > 0:
		ref.Part = e.Parts[0]
	case ref.Part != "" && !slices.Contains(e.Parts, ref.Part):
		if len(e.Parts) == 0 {
			return FieldErrorf("experiment.part", "experiment %s is one run and has no parts, got %q", e.Name, ref.Part)
		}
		return FieldErrorf("experiment.part", "experiment %s has no part %q (parts: %s)", e.Name, ref.Part, strings.Join(e.Parts, ", "))
	}
	return nil
}

// String describes the reference as the CLI prints it: "seed-001
// (callee-400) at scale 0.2".
func (r ExperimentRef) String() string {
	s := r.Name
	if r.Part != "" {
		s += " (" + r.Part + ")"
	}
	if r.Scale != 0 {
		s += fmt.Sprintf(" at scale %g", r.Scale)
	}
	return s
}

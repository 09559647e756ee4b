package bench

// WhyReport is a report's why: for each subject, what recorded inside its
// first round and what that evidence says of each measured stage; where a
// capacity search ran, the why at its first failing rate beside the last
// passing one; where the run measured a target with and without
// recording, what recording cost.
type WhyReport struct {
	Targets  []WhyTarget   `json:"targets"`
	Capacity []WhyCapacity `json:"capacity,omitempty"`
	Overhead []Overhead    `json:"overhead,omitempty"`
	// Flames are the flame graphs a report draws, in order: one per
	// subject with samples, at the stage that matters, each virtual-thread
	// subject beside its platform-thread one.
	Flames []FlameRef `json:"flames,omitempty"`
	// Unsampled say, one sentence a subject, which subjects recorded
	// inside had no CPU sample in the stage that matters, and so no flame
	// graph: calls that mostly wait can leave a short stage with none.
	Unsampled []string `json:"unsampled,omitempty"`
}

// WhyTarget is one subject's why, from its first measured round.
type WhyTarget struct {
	Label string `json:"label"`
	Key   string `json:"key"` // the result's TargetResult.Key()
	// Source is what recorded inside it; NoProfile why nothing did. Off
	// marks a result the spec turned recording off for.
	Source    string `json:"source,omitempty"`
	NoProfile string `json:"noProfile,omitempty"`
	Off       bool   `json:"off,omitempty"`
	// Matters is the stage the report leads with and draws: the busiest
	// the result measured, or a capacity search's first failing trial.
	Matters int `json:"matters"`
	// Stages are the diagnoses of its measured stages, in stage order.
	Stages []Diagnosis `json:"stages"`
	// Finding is the why of the stage that matters in one sentence.
	Finding string      `json:"finding"`
	Cost    *InsideCost `json:"cost,omitempty"`
	Files   []Artifact  `json:"files,omitempty"`
	Notes   []string    `json:"notes,omitempty"`
	// JMC is JDK Mission Control's analysis of its recording.
	JMC *JMCAnalysis `json:"jmc,omitempty"`
	// VirtualThreads are its virtual threads per stage as the thread
	// dumps counted them (Inside.VirtualThreads).
	VirtualThreads []VirtualThreadStage `json:"virtualThreads,omitempty"`
}

// Stage returns the diagnosis of a stage, or nil.
func (w WhyTarget) Stage(index int) *Diagnosis {
	for i := range w.Stages {
		if w.Stages[i].Stage == index {
			return &w.Stages[i]
		}
	}
	return nil
}

// WhyCapacity is a capacity search's why at its first failing rate beside
// its last passing one.
type WhyCapacity struct {
	Label       string     `json:"label"`
	FailingRate float64    `json:"failingRate,omitempty"`
	Failing     *Diagnosis `json:"failing,omitempty"`
	PassingRate float64    `json:"passingRate,omitempty"`
	Passing     *Diagnosis `json:"passing,omitempty"`
	Sentence    string     `json:"sentence"`
}

// Overhead is what recording cost one target, measured: the same target
// under the same settings, with recording (Recorded) and without
// (Unrecorded), in one run. Change is (With - Without) / Without in
// percent, on the whole attack's throughput.
type Overhead struct {
	Target     string  `json:"target"`
	Recorded   string  `json:"recorded"`   // its label
	Unrecorded string  `json:"unrecorded"` // its label
	Source     string  `json:"source"`     // what recorded
	With       float64 `json:"with"`       // req/s
	Without    float64 `json:"without"`    // req/s
	Change     float64 `json:"change"`
	Sentence   string  `json:"sentence"`
}

// FlameRef is a flame graph a report draws: a result's folded samples of
// one stage (the artifact ArtifactFolded of Key and Stage).
type FlameRef struct {
	Label  string `json:"label"`
	Key    string `json:"key"`
	Stage  int    `json:"stage"`
	Source string `json:"source"`
	Title  string `json:"title"`
}

// Artifact returns the file the flame graph is drawn from.
func (f FlameRef) Artifact() Artifact {
	stage := f.Stage
	return Artifact{Target: f.Key, Stage: &stage, Kind: ArtifactFolded}
}

package bench

// CapacitySpec asks a run for a capacity search instead of its profile's
// stages: per target, under the open model, the highest arrival rate whose
// trials meet Objective. Each trial is stored as a stage of the target.
// Zero fields take internal/capacity's defaults.
type CapacitySpec struct {
	Objective       string   `json:"objective" yaml:"objective"`                                 // e.g. "p99<=250ms,errors<=0.1%"
	Precision       float64  `json:"precision,omitempty" yaml:"precision,omitempty"`             // relative width at which bisection stops
	Confirmations   int      `json:"confirmations,omitempty" yaml:"confirmations,omitempty"`     // full-length trials at the answer
	TrialDuration   Duration `json:"trialDuration,omitempty" yaml:"trialDuration,omitempty"`     // of a bracketing or bisecting trial
	ConfirmDuration Duration `json:"confirmDuration,omitempty" yaml:"confirmDuration,omitempty"` // of a confirmation
	Settle          Duration `json:"settle,omitempty" yaml:"settle,omitempty"`                   // pause between trials
	Budget          Duration `json:"budget,omitempty" yaml:"budget,omitempty"`                   // for all the run's targets together
	StartRate       float64  `json:"startRate,omitempty" yaml:"startRate,omitempty"`             // req/s of the first trial
	MaxRate         float64  `json:"maxRate,omitempty" yaml:"maxRate,omitempty"`                 // req/s above which the search does not go
}

// CapacityResult is what a capacity search found for one target.
type CapacityResult struct {
	Objective string `json:"objective"`
	// Rate is the highest rate that passed every confirmation, req/s; 0
	// when none did.
	Rate float64 `json:"rate"`
	// Confirmations are the figures of the full-length trials at Rate.
	Confirmations []CapacityTrial `json:"confirmations,omitempty"`
	// Failed is the next rate up that failed, with what failed; nil when
	// none did.
	Failed *CapacityTrial `json:"failed,omitempty"`
	Width  float64        `json:"width,omitempty"` // the bracket's final relative width
	Stop   string         `json:"stop"`            // precision, budget, generator-bound, max-rate, no-pass
	Reason string         `json:"reason"`          // a sentence saying why it stopped
	Trials int            `json:"trials"`
	Spent  Duration       `json:"spent"`
}

// CapacityTrial is one trial of a capacity search, as judged.
type CapacityTrial struct {
	Stage      int      `json:"stage"` // its index among the target's stages
	Phase      string   `json:"phase"` // bracket, bisect, confirm
	Rate       float64  `json:"rate"`
	Throughput float64  `json:"throughput"`
	P99        float64  `json:"p99"` // ms
	Violations []string `json:"violations,omitempty"`
	// GeneratorBound says why the load generator limited the trial.
	GeneratorBound string `json:"generatorBound,omitempty"`
}

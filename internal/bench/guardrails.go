package bench

// Guardrails are the maxima a run spec must stay within, so that neither a
// typo nor a shared daemon's users can overload the host.
type Guardrails struct {
	MaxRate        float64  `json:"maxRate" yaml:"maxRate"`               // requests/s in any open stage
	MaxConcurrency int      `json:"maxConcurrency" yaml:"maxConcurrency"` // clients in any closed stage
	MaxDuration    Duration `json:"maxDuration" yaml:"maxDuration"`       // warm-up plus profile, per target
	MaxQueue       int      `json:"maxQueue" yaml:"maxQueue"`             // runs waiting in the daemon's queue
	MaxTimeout     Duration `json:"maxTimeout" yaml:"maxTimeout"`         // per-request timeout
}

// DefaultGuardrails are sized for one host: well above what a 2-core machine
// sustains, well below what would take a shared host down.
var DefaultGuardrails = Guardrails{
	MaxRate:        20000,
	MaxConcurrency: 5000,
	MaxDuration:    Duration(60 * 60e9),
	MaxQueue:       100,
	MaxTimeout:     Duration(120e9),
}

package bench

// Downstream is a service the targets call during a run (GET /api/fanout,
// GET /api/downstream): one of the catalog's targets, started before them
// on its own loopback port and removed after them. Seed 001's callee is
// java-platform with 200 Tomcat workers.
type Downstream struct {
	Target string `json:"target" yaml:"target"`
	// Workers bounds the requests it serves at once: Tomcat's pool for a
	// Java target, a semaphore around the handlers for the Go target.
	Workers int `json:"workers" yaml:"workers"`
	// Limits are its own; zero fields take the spec's.
	Limits Limits `json:"limits,omitempty" yaml:"limits,omitempty"`
}

// DownstreamResult is what became of a run's downstream service.
type DownstreamResult struct {
	Target    string            `json:"target"`
	Status    TargetStatus      `json:"status"`
	Error     string            `json:"error,omitempty"`
	URL       string            `json:"url,omitempty"`
	Image     ImageInfo         `json:"image"`
	Limits    Limits            `json:"limits"`
	CPUSet    string            `json:"cpuset,omitempty"`
	Settings  map[string]string `json:"settings,omitempty"`
	StartupMs float64           `json:"startupMs,omitempty"`
}

// MaxDownstreamWorkers bounds a downstream's pool.
const MaxDownstreamWorkers = 10000

// DownstreamLimits are the downstream's limits: its own, else the spec's.
func (s RunSpec) DownstreamLimits() Limits {
	if s.Downstream == nil {
		return s.Limits
	}
	return s.Limits.Over(s.Downstream.Limits)
}

// Over is l with the fields own sets replaced: a service's own limits over
// the spec's.
func (l Limits) Over(own Limits) Limits {
	if own.CPUs != 0 {
		l.CPUs = own.CPUs
	}
	if own.MemoryMiB != 0 {
		l.MemoryMiB = own.MemoryMiB
	}
	return l
}

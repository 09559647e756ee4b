package bench

import (
	"math"
	"slices"
	"strings"
	"time"
)

// Bounds of spec fields that no configuration changes.
const (
	MinStageDuration = Duration(time.Second)   // shorter stages measure start-up, not load
	MinRate          = 0.1                     // requests/s of an open stage that sends at all
	MinMemoryMiB     = 64                      // below this no JVM starts
	MaxMemoryMiB     = 1 << 20                 // 1 TiB, far above any host, far below an overflow
	MaxTomcatThreads = 10000                   // Tomcat's pool
	MaxParallelism   = 256                     // virtual-thread carriers
	MaxWeight        = 1000                    // of one request in a mix
	MaxNameLength    = 200                     // a run's name
	MaxRepeat        = 20                      // rounds of a run
	MaxCases         = 50                      // cases of a run
	MaxLabels        = 32                      // labels of a run
	MaxLabelKey      = 63                      // characters of a label's key
	MaxDuration      = Duration(math.MaxInt64) // the largest duration there is
)

// GarbageCollectors are the collectors a spec may name, as HotSpot names
// them (-XX:+Use<Name>GC), in the order they are offered: the one list
// (api/openapi.yaml's java.gc pattern is checked against it). A spec may
// write one in any case, with or without "GC".
var GarbageCollectors = []string{"G1", "Parallel", "Serial", "Z", "Shenandoah"}

func (g Guardrails) WithDefaults() Guardrails {
	d := DefaultGuardrails
	if g.MaxRate <= 0 {
		g.MaxRate = d.MaxRate
	}
	if g.MaxConcurrency <= 0 {
		g.MaxConcurrency = d.MaxConcurrency
	}
	if g.MaxDuration <= 0 {
		g.MaxDuration = d.MaxDuration
	}
	if g.MaxQueue <= 0 {
		g.MaxQueue = d.MaxQueue
	}
	if g.MaxTimeout <= 0 {
		g.MaxTimeout = d.MaxTimeout
	}
	return g
}

// MaxSleep bounds a think time.
const MaxSleep = Duration(time.Hour)

// Total is the profile's length and whether it fits a Duration.
func (p Profile) Total() (Duration, bool) {
	var total Duration
	for _, st := range p.Stages {
		var ok bool
		if total, ok = AddDurations(total, st.Duration); !ok {
			return 0, false
		}
	}
	return total, true
}

// LookupGC returns HotSpot's name of a collector a spec names.
func LookupGC(name string) (string, bool) {
	name = strings.TrimSuffix(strings.ToLower(name), "gc")
	i := slices.IndexFunc(GarbageCollectors, func(gc string) bool { return strings.ToLower(gc) == name })
	if i < 0 {
		return "", false
	}
	return GarbageCollectors[i], true
}

// Catalog is what Prepare checks a spec against: the targets that exist,
// the guardrails, and the host the targets will run on.
type Catalog struct {
	Targets    []TargetInfo
	Guardrails Guardrails // zero fields take DefaultGuardrails
	// HostCPUs and HostMemoryBytes bound the limits; zero leaves them unchecked.
	HostCPUs        int
	HostMemoryBytes int64
	// Engines are the engines besides EngineLocal a spec may place targets
	// on, and DefaultEngine the one a spec that names none runs on (empty:
	// EngineLocal). HostCPUs and HostMemoryBytes are the local engine's.
	Engines       []CatalogEngine
	DefaultEngine string
	// AllowImages lets a spec name the images it builds on (java.baseImage):
	// a local run's user may, a daemon's callers may not, since the engine
	// would pull and run whatever they named; the daemon's operator sets
	// images in its configuration.
	AllowImages bool
	// Builtins are the profiles and experiments a spec may name instead of
	// writing them out (package builtin's); nil: none.
	Builtins Builtins
	// Generators is how many load generators send each attack together:
	// a swarm's, from the daemon's configuration; 0 or 1 for the one
	// process. A spec their split plan cannot send is refused.
	Generators int
}

// CheckRate checks an open-model rate (requests/s) named by field: 0 (none)
// or from MinRate to the guardrails' maximum.
func CheckRate(rate float64, field string, g Guardrails) error {
	if rate == 0 {
		return nil
	}
	if !(rate >= MinRate && rate <= g.MaxRate) {
		return FieldErrorf(field, "must be 0 or from %g to %g requests/s (the configured maximum), got %g", MinRate, g.MaxRate, rate)
	}
	return nil
}

// AddDurations adds two non-negative durations, reporting overflow.
func AddDurations(a, b Duration) (Duration, bool) {
	if a < 0 || b < 0 || a > MaxDuration-b {
		return 0, false
	}
	return a + b, true
}

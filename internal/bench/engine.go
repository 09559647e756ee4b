package bench

import (
	"slices"
	"strings"
)

// EngineLocal names the Docker engine on the orchestrator's own host (the
// one DOCKER_HOST or the default socket reaches). It is always configured;
// an operator adds others by name, each with its address.
const EngineLocal = "local"

// MaxEngineName bounds an engine's name.
const MaxEngineName = 63

// CatalogEngine is an engine a spec may place targets on, with its host:
// its CPUs and MemoryBytes bound a spec's limits (zero: unchecked, the
// engine did not say).
type CatalogEngine struct {
	Name string
	Machine
}

// ValidEngineName reports whether name can name an engine: a lower-case
// letter, then lower-case letters, digits and '-', at most MaxEngineName
// characters. Addresses (tcp://..., ssh://user@host, host:port) never are.
func ValidEngineName(name string) bool {
	if name == "" || len(name) > MaxEngineName || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	return strings.IndexFunc(name, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-')
	}) < 0
}

// EngineOf returns the engine a case runs on: its own, else the spec's,
// else the local one (runs stored before engines existed).
func (s RunSpec) EngineOf(c Case) string {
	switch {
	case c.Engine != "":
		return c.Engine
	case s.Engine != "":
		return s.Engine
	}
	return EngineLocal
}

// Engines returns the engines the run places targets on, in order of first
// use; a downstream service runs on the spec's.
func (s RunSpec) Engines() []string {
	var names []string
	if s.Downstream != nil {
		names = append(names, s.EngineOf(Case{}))
	}
	for _, c := range s.RunCases() {
		if name := s.EngineOf(c); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// MixesEngines reports whether the run's targets run on more than one
// engine: their figures then differ by host as well as by thread model.
func (s RunSpec) MixesEngines() bool { return len(s.Engines()) > 1 }

// engineNames lists the engines a catalog offers, local first.
func (c Catalog) engineNames() []string {
	names := []string{EngineLocal}
	for _, e := range c.Engines {
		names = append(names, e.Name)
	}
	return names
}

// DefaultEngine is the engine a spec that names none runs on.
func (c Catalog) EngineByDefault() string {
	if c.DefaultEngine != "" {
		return c.DefaultEngine
	}
	return EngineLocal
}

// HostBounds returns the CPUs and memory of the host behind an engine,
// zero where unknown.
func (c Catalog) HostBounds(engine string) (cpus int, memoryBytes int64) {
	if engine == EngineLocal {
		return c.HostCPUs, c.HostMemoryBytes
	}
	for _, e := range c.Engines {
		if e.Name == engine {
			return e.CPUs, e.MemoryBytes
		}
	}
	return 0, 0
}

// CheckEngine checks that name is an engine of the catalog (a configured
// one, or EngineLocal); field names it in messages.
func CheckEngine(name string, c Catalog, field string) error { return checkEngineRef(name, field, c) }

// checkEngineRef checks that name is a configured engine's.
func checkEngineRef(name, field string, c Catalog) error {
	known := strings.Join(c.engineNames(), ", ")
	if !ValidEngineName(name) {
		return FieldErrorf(field, "names a configured engine by its name (lower-case letters, digits, '-'), never by an address or URL; got %q (configured: %s)", name, known)
	}
	if !slices.Contains(c.engineNames(), name) {
		return FieldErrorf(field, "unknown engine %q (configured: %s)", name, known)
	}
	return nil
}

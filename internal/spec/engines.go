package spec

import (
	"fmt"

	"github.com/threadbench/threadbench/internal/bench"
)

// checkEngines puts a spec without an engine on the default one and checks
// every engine it names against the configuration: by name only, since an
// engine runs whatever it is sent and its operator chooses which to trust.
func checkEngines(spec *bench.RunSpec, c bench.Catalog) error {
	if spec.Engine == "" {
		spec.Engine = c.EngineByDefault()
	}
	if err := bench.CheckEngine(spec.Engine, c, "engine"); err != nil {
		return err
	}
	for i, cs := range spec.Cases {
		field := fmt.Sprintf("cases[%d].engine", i)
		if cs.Engine == "" {
			continue
		}
		if err := bench.CheckEngine(cs.Engine, c, field); err != nil {
			return err
		}
		if spec.Downstream != nil && cs.Engine != spec.Engine {
			return bench.FieldErrorf(field, "a run with a downstream service keeps every target on the run's engine (%s), where the downstream runs and can be reached; got %q", spec.Engine, cs.Engine)
		}
	}
	return nil
}

func checkLoadEngine(spec *bench.RunSpec, _ bench.Catalog) error { return bench.CheckLoadEngine(spec) }

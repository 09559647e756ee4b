package spec

import (
	"fmt"

	"github.com/threadbench/threadbench/internal/bench"
)

// checkDownstream checks a spec's downstream service.
func checkDownstream(spec *bench.RunSpec, c bench.Catalog) error {
	d := spec.Downstream
	if d == nil {
		for i, r := range spec.Workload.Requests {
			if e, _ := bench.LookupEndpoint(r.Endpoint); e.Downstream {
				return bench.FieldErrorf(fmt.Sprintf("workload.requests[%d].endpoint", i), "%s calls a downstream service: declare one (downstream: {target: java-platform, workers: 200})", r.Endpoint)
			}
		}
		return nil
	}
	if err := bench.CheckTargetRef(d.Target, c.Targets, "downstream.target"); err != nil {
		return err
	}
	if d.Workers < 1 || d.Workers > bench.MaxDownstreamWorkers {
		return bench.FieldErrorf("downstream.workers", "must be from 1 to %d, got %d", bench.MaxDownstreamWorkers, d.Workers)
	}
	limits := spec.DownstreamLimits()
	return prefixField(checkLimits(&bench.RunSpec{Limits: limits, Engine: spec.Engine}, c), "downstream.")
}

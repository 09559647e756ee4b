package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
)

// Engines are the Docker engines targets run on, by name: the local one and
// those the operator configured. It implements bench.TargetRuntime by
// handing each call to the runtime of the engine it names, so that builds,
// starts, cleanups and the leak rules are each engine's own.
type Engines struct {
	local  *Runtime
	byName map[string]*Runtime
	order  []*Runtime // local first, then as configured
}

var _ bench.TargetRuntime = (*Engines)(nil)

// NewEngines puts the local engine's runtime and the remote ones' together.
// Names must be distinct; the local runtime must drive the local engine.
func NewEngines(local *Runtime, remote ...*Runtime) (*Engines, error) {
	if local.engine.Remote() {
		return nil, fmt.Errorf("engines: the first runtime must be the local engine's, got %s", local.engine.Name)
	}
	e := &Engines{local: local, byName: map[string]*Runtime{local.engine.Name: local}, order: []*Runtime{local}}
	for _, rt := range remote {
		if _, dup := e.byName[rt.engine.Name]; dup {
			return nil, fmt.Errorf("engines: %s is configured twice", rt.engine.Name)
		}
		e.byName[rt.engine.Name] = rt
		e.order = append(e.order, rt)
	}
	return e, nil
}

// Local returns the local engine's runtime.
func (e *Engines) Local() *Runtime { return e.local }

// All returns every engine's runtime, the local one first, then as
// configured.
func (e *Engines) All() []*Runtime { return slices.Clone(e.order) }

// Runtime returns the runtime of the engine a spec names ("" for local).
// A name no longer configured (a queued run from before the daemon's
// configuration changed) is an EUNAVAILABLE error.
func (e *Engines) Runtime(name string) (*Runtime, error) {
	if name == "" {
		return e.local, nil
	}
	rt, ok := e.byName[name]
	if !ok {
		return nil, bench.Errorf(bench.EUNAVAILABLE, "engine %q is not in this daemon's configuration", name)
	}
	return rt, nil
}

// Build builds the target's image on the engine spec.Engine names.
func (e *Engines) Build(ctx context.Context, target string, spec bench.RunSpec, log io.Writer) (bench.ImageInfo, error) {
	rt, err := e.Runtime(spec.Engine)
	if err != nil {
		return bench.ImageInfo{}, err
	}
	return rt.Build(ctx, target, spec, log)
}

// Start starts the target on the engine req.Engine names.
func (e *Engines) Start(ctx context.Context, target string, img bench.ImageInfo, req bench.StartRequest) (bench.Target, error) {
	rt, err := e.Runtime(req.Engine)
	if err != nil {
		return nil, err
	}
	req.Engine = rt.engine.Name
	return rt.Start(ctx, target, img, req)
}

// Cleanup removes what this history's runs left behind on every engine.
// It goes on past an engine that fails, and says which failed: recovery
// is then tried again.
func (e *Engines) Cleanup(ctx context.Context) (int, error) {
	var (
		removed int
		errs    []error
	)
	for _, rt := range e.order {
		n, err := rt.Cleanup(ctx)
		removed += n
		if err != nil {
			errs = append(errs, fmt.Errorf("engine %s: %w", rt.engine.Name, err))
		}
	}
	return removed, errors.Join(errs...)
}

// Engine describes the engine named and its host.
func (e *Engines) Engine(ctx context.Context, name string) (bench.EngineInfo, error) {
	rt, err := e.Runtime(name)
	if err != nil {
		return bench.EngineInfo{}, err
	}
	return rt.Engine(ctx)
}

// Close releases every engine's connection.
func (e *Engines) Close() error {
	var errs []error
	for _, rt := range e.order {
		errs = append(errs, rt.Close())
	}
	return errors.Join(errs...)
}

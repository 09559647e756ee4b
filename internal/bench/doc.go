// Package bench holds threadbench's domain: what a run is (RunSpec, Profile,
// Stage, Workload, Limits), what it produced (Run, TargetResult, StageResult,
// Stats), the store interface, and the one error type with codes.
//
// A load model is a LoadModel, one file each (model_open.go,
// model_closed.go), found by name with LookupModel: code that needs to know
// how a profile offers load asks its model, not its name.
//
// The built-in profiles and experiments are data, in package builtin; a
// spec that names one is resolved through the Builtins port of the Catalog
// package spec prepares it against. Decoding a spec, checking it and
// filling in its defaults are spec's.
//
// Every other internal package imports bench and speaks its words; bench
// imports nothing of the project's. cmd/orchestrator wires the concrete
// packages (targets, load, store, runner, httpapi, report) together.
package bench

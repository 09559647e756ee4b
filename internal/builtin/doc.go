// Package builtin holds threadbench's built-ins, as data: the profiles a
// spec may name (smoke, the seed k6 test's ramps, the closed-model steps)
// and the experiments that reproduce the seed articles, each with the run
// it expands into at a scale, the seed's own figures, and the sheet its
// results read in: the seed's own tables, ours beside the seed's
// (SheetOf), which package report writes as text or markdown.
//
// Set hands the profiles and experiments to spec.Prepare through the
// domain's Builtins port, so that the domain package keeps the types and
// the rules and this one the catalog; cmd/orchestrator wires it into every
// bench.Catalog.
package builtin

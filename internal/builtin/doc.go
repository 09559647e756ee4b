// Package builtin holds threadbench's built-ins, as data: the profiles a
// spec may name (smoke, the seed k6 test's ramps, the closed-model steps)
// and the experiments that reproduce the seed articles, each with the run
// it expands into at a scale and the seed's own figures.
//
// Set hands them to bench.Prepare through the domain's Builtins port, so
// that the domain package keeps the types and the rules and this one the
// catalog; cmd/orchestrator wires it into every bench.Catalog.
package builtin

// Package spec is the way from a spec as written to a run ready to queue:
// Decode reads YAML or JSON strictly (an unknown field or a wrong type is
// an error naming its path and line), Prepare resolves a built-in
// experiment or profile, applies the defaults and checks every field
// against the catalog, and PrepareRuns does so for each part of an
// experiment. The CLI, the daemon's API and the web page's form all pass
// through it, so a spec is refused the same way wherever it comes from,
// before anything is built or started.
//
// The types it reads and checks are bench's; the rules that need nothing
// but a type (a stage's bounds under its load model, an engine's name)
// stay on the type, and are called from here.
package spec

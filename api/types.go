package api

import "github.com/threadbench/threadbench/internal/bench"

// Response documents of api/openapi.yaml that are not domain types, exported
// so that a client can decode them.

// Health is the body of GET /healthz.
type Health struct {
	Status      string `json:"status"`
	QueueLength int    `json:"queueLength"`
}

// TargetList is the body of GET /targets.
type TargetList struct {
	Targets []bench.TargetInfo `json:"targets"`
}

// ProfileList is the body of GET /profiles.
type ProfileList struct {
	Profiles []bench.Profile `json:"profiles"`
}

// RunList is the body of GET /runs: one page of run summaries, and the
// cursor of the next ("" on the last page).
type RunList struct {
	Runs       []bench.RunSummary `json:"runs"`
	NextCursor string             `json:"nextCursor,omitempty"`
}

// SeriesList is the body of GET /runs/{id}/targets/{target}/series.
type SeriesList struct {
	Series []bench.Series `json:"series"`
}

// FileList is the body of GET /runs/{id}/files: what the run keeps of what
// recorded inside its targets, each file with the path it is served at
// under /runs/{id}/.
type FileList struct {
	Files []File `json:"files"`
}

// File is one file of a FileList.
type File struct {
	bench.Artifact
	Path string `json:"path"`
}

package httpapi

import (
	"mime"
	"net/http"
	"slices"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/bench"
)

// What recorded inside a run's targets, served as files: a JVM's flight
// recording (JDK Mission Control, jfr), a Go target's CPU profile of a
// stage (go tool pprof), a stage's folded stacks (flamegraph.pl,
// speedscope). Every name in a path is checked against the run (its
// targets) and a fixed list (the kinds of file), and the files come out
// of the history: nothing a caller sends names a file on disk.

// fileTypes are the media types the files are served as.
var fileTypes = map[string]string{
	bench.ArtifactJFR:     "application/octet-stream",
	bench.ArtifactPprof:   "application/octet-stream", // gzipped protobuf, served as is: not a Content-Encoding
	bench.ArtifactFolded:  "text/plain; charset=utf-8",
	bench.ArtifactThreads: "text/plain; charset=utf-8",
}

// listFiles answers the files a run keeps.
func (s *Server) listFiles(w http.ResponseWriter, r *http.Request) {
	id, err := runID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	files, err := s.cfg.Store.Artifacts(r.Context(), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := api.FileList{Files: []api.File{}}
	for _, f := range files {
		out.Files = append(out.Files, api.File{Artifact: f, Path: f.Path()})
	}
	s.writeJSON(w, r, http.StatusOK, out)
}

// getRecording answers a target's JVM recording.
func (s *Server) getRecording(w http.ResponseWriter, r *http.Request) {
	s.serveFile(w, r, bench.Artifact{Kind: bench.ArtifactJFR})
}

// getThreads answers a target's JVM thread samples.
func (s *Server) getThreads(w http.ResponseWriter, r *http.Request) {
	s.serveFile(w, r, bench.Artifact{Kind: bench.ArtifactThreads})
}

// getStageFile answers a file of one stage of a target.
func (s *Server) getStageFile(w http.ResponseWriter, r *http.Request) {
	stage, err := strconv.Atoi(chi.URLParam(r, "stage"))
	kind := chi.URLParam(r, "file")
	if err != nil || stage < 0 || bench.WholeRun(kind) || !slices.Contains(bench.ArtifactKinds, kind) {
		s.writeError(w, r, bench.Errorf(bench.ENOTFOUND, "no such file of a stage: %s", quoteClipped(kind)))
		return
	}
	s.serveFile(w, r, bench.Artifact{Stage: &stage, Kind: kind})
}

// serveFile answers a file of a run's target: 404 for a run, a target
// or a file the run does not have.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, want bench.Artifact) {
	id, target, err := s.runTarget(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	want.Target = target
	file, err := s.findFile(r, id, want)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", fileTypes[file.Kind])
	h.Set("Content-Length", strconv.FormatInt(file.Bytes, 10))
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": "threadbench-" + id + "-" + file.FileName()}))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if err := s.cfg.Store.WriteArtifact(r.Context(), id, file, w); err != nil {
		// The status is out already: all that is left is the log.
		s.log.WarnContext(r.Context(), "writing a file", "requestId", requestIDFrom(r.Context()), "run", id, "file", file.Path(), "error", err)
	}
}

// findFile returns the run's file of that name, with its size.
func (s *Server) findFile(r *http.Request, id string, want bench.Artifact) (bench.Artifact, error) {
	files, err := s.cfg.Store.Artifacts(r.Context(), id)
	if err != nil {
		return bench.Artifact{}, err
	}
	for _, f := range files {
		if f.Same(want) {
			return f, nil
		}
	}
	return bench.Artifact{}, bench.Errorf(bench.ENOTFOUND, "run %s keeps no %s: nothing recorded it, or recording was off (its report's why says which)",
		id, quoteClipped(want.Path()))
}

package httpapi

import (
	"github.com/threadbench/threadbench/api"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/threadbench/threadbench/internal/bench"
)

// getOpenAPI serves the contract the daemon validates against, with its
// own catalog's targets as the values a spec's targets may take.
func (s *Server) getOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	if _, err := w.Write(s.document); err != nil {
		s.log.DebugContext(r.Context(), "writing openapi.yaml", "error", err)
	}
}

// servedLine matches a value after an x-served marker in api/openapi.yaml:
// what a spec may name or ask for on a daemon (its targets and engines,
// its host's CPUs and memory), which the daemon serves as its own.
var servedLine = regexp.MustCompile(`(?m)(# x-served (\w+):[^\n]*\n\s*\w+: )[^\n]*$`)

// Served are the values a daemon puts in the document it serves.
type Served struct {
	Targets   []bench.TargetInfo // leaving out those it cannot build
	Engines   []string
	CPUs      float64 // most a target may get; 0 leaves the document's
	MemoryMiB int64
}

// servedDocument is api/openapi.yaml with this daemon's values in place of
// the built-in ones, so that a client or fuzzer reading it knows what is
// valid here.
func servedDocument(spec []byte, v Served) []byte {
	var refs []string
	for _, t := range v.Targets {
		if t.Unavailable != "" {
			continue // refused: not a value a spec may take here
		}
		for _, ref := range t.Refs() {
			refs = append(refs, flowItem(ref))
		}
	}
	values := map[string]string{}
	if len(refs) > 0 {
		values["targets"] = "[" + strings.Join(refs, ", ") + "]"
	}
	if len(v.Engines) > 0 {
		values["engines"] = "[" + strings.Join(v.Engines, ", ") + "]"
	}
	if v.CPUs > 0 {
		values["cpus"] = strconv.FormatFloat(v.CPUs, 'g', -1, 64)
	}
	if v.MemoryMiB > 0 {
		values["memoryMiB"] = strconv.FormatInt(v.MemoryMiB, 10)
	}
	return servedLine.ReplaceAllFunc(spec, func(m []byte) []byte {
		sub := servedLine.FindSubmatch(m)
		value, ok := values[string(sub[2])]
		if !ok {
			return m
		}
		return append(slices.Clone(sub[1]), value...)
	})
}

// flowItem writes a value as an item of a YAML flow sequence: quoted
// where it has a comma, as a variant on several axes does
// (orders@virtual,jdk=21).
func flowItem(v string) string {
	if strings.Contains(v, ",") {
		return strconv.Quote(v)
	}
	return v
}

func (s *Server) getHealth(w http.ResponseWriter, r *http.Request) {
	s.writeJSON(w, r, http.StatusOK, api.Health{Status: "ok", QueueLength: s.cfg.Runs.QueueLength()})
}

// getMetrics serves the daemon's own metrics. promhttp reports gathering
// errors in the exposition rather than failing the scrape.
func (s *Server) getMetrics() http.Handler {
	return promhttp.HandlerFor(s.cfg.Gatherer, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

func (s *Server) listTargets(w http.ResponseWriter, r *http.Request) {
	targets := s.cfg.Targets
	if targets == nil {
		targets = []bench.TargetInfo{}
	}
	s.writeJSON(w, r, http.StatusOK, api.TargetList{Targets: targets})
}

func (s *Server) listProfiles(w http.ResponseWriter, r *http.Request) {
	profiles := s.cfg.Profiles
	if profiles == nil {
		profiles = []bench.Profile{}
	}
	s.writeJSON(w, r, http.StatusOK, api.ProfileList{Profiles: profiles})
}

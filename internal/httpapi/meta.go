package httpapi

import (
	"net/http"
	"regexp"
	"slices"
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

// catalogLine is the line of api/openapi.yaml after the x-catalog marker:
// the enum of RunSpec.targets' items, which the daemon serves as its own.
var catalogLine = regexp.MustCompile(`(?m)(# x-catalog:[^\n]*\n(\s*)enum: )\[[^\]\n]*\]`)

// servedDocument is api/openapi.yaml with the targets a spec may name on
// this daemon (each name, and each name@variant) in place of the built-in
// catalog's, so that a client or fuzzer reading it knows what is valid here.
func servedDocument(spec []byte, targets []bench.TargetInfo) []byte {
	var refs []string
	for _, t := range targets {
		if t.Unavailable != "" {
			continue // refused: not a value a spec may take here
		}
		refs = append(refs, t.Name)
		for _, v := range t.Variants {
			refs = append(refs, t.Name+"@"+v)
		}
	}
	if len(refs) == 0 {
		return spec
	}
	list := "[" + strings.Join(refs, ", ") + "]"
	return catalogLine.ReplaceAllFunc(spec, func(m []byte) []byte {
		head := catalogLine.FindSubmatch(m)[1]
		return append(slices.Clone(head), list...)
	})
}

func (s *Server) getHealth(w http.ResponseWriter, r *http.Request) {
	s.writeJSON(w, r, http.StatusOK, Health{Status: "ok", QueueLength: s.cfg.Runs.QueueLength()})
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
	s.writeJSON(w, r, http.StatusOK, TargetList{Targets: targets})
}

func (s *Server) listProfiles(w http.ResponseWriter, r *http.Request) {
	profiles := s.cfg.Profiles
	if profiles == nil {
		profiles = []bench.Profile{}
	}
	s.writeJSON(w, r, http.StatusOK, ProfileList{Profiles: profiles})
}

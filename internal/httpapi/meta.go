package httpapi

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/bench"
)

// getOpenAPI serves the contract the daemon validates against.
func (s *Server) getOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	if _, err := w.Write(api.Spec); err != nil {
		s.log.DebugContext(r.Context(), "writing openapi.yaml", "error", err)
	}
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

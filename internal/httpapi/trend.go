package httpapi

import (
	"net/http"

	"github.com/threadbench/threadbench/internal/trend"
)

// getTrend answers one figure of one target over the runs of a spec, with
// its change points (internal/trend).
func (s *Server) getTrend(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := trend.Query{Name: q.Get(trend.FieldName), Target: q.Get(trend.FieldTarget),
		Figure: q.Get(trend.FieldFigure), Label: q.Get(trend.FieldLabel)}
	if query.Figure == "" {
		query.Figure = trend.Figures[0].Name
	}
	t, err := trend.Read(r.Context(), s.cfg.Store, query, trend.Options{})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, t)
}

package web

import (
	"bytes"
	"context"
	"html/template"
	"net/http"
	"net/url"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
	"github.com/threadbench/threadbench/internal/trend"
)

// trendView is what the trend part renders: the form and, once a name and
// a target are given, internal/report's trend.
type trendView struct {
	Query   trend.Query
	Figures []string
	Targets []string
	Trend   template.HTML
	Error   *errorView
}

// trendPart renders the form and the trend its query asks for. A bad
// field is shown next to it, with status 400; no run to follow is said
// under the form, with status 404.
func (p *Pages) trendPart(ctx context.Context, q url.Values) ([]byte, int, error) {
	view := trendView{Figures: trend.FigureNames(), Targets: p.targetNames(), Query: trend.Query{
		Name: q.Get(trend.FieldName), Target: q.Get(trend.FieldTarget), Figure: q.Get(trend.FieldFigure), Label: q.Get(trend.FieldLabel)}}
	if view.Query.Figure == "" {
		view.Query.Figure = trend.Figures[0].Name
	}
	status := http.StatusOK
	if view.Query.Name != "" || view.Query.Target != "" {
		err := p.trend(ctx, &view)
		if fault, ok := fieldFault(err); ok {
			view.Error, status = fault, http.StatusBadRequest
		} else if bench.ErrorCode(err) == bench.ENOTFOUND {
			view.Error = &errorView{Status: http.StatusNotFound, Title: http.StatusText(http.StatusNotFound), Detail: bench.ErrorMessage(err)}
			status = http.StatusNotFound
		} else if err != nil {
			return nil, 0, err
		}
	}
	body, err := p.render("trend", view)
	return body, status, err
}

// trend reads the view's trend and renders it into the view.
func (p *Pages) trend(ctx context.Context, view *trendView) error {
	t, err := trend.Read(ctx, p.cfg.Store, view.Query, trend.Options{})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := report.WriteTrendFragment(&buf, t); err != nil {
		return err
	}
	view.Trend = template.HTML(buf.String()) // #nosec: internal/report escapes what it writes
	return nil
}

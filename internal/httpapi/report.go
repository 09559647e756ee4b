package httpapi

import (
	"bytes"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

// reportCSP lets the HTML report do what it needs and nothing more: its
// inline styles and SVG; no script, no request anywhere.
const reportCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// htmlType is the media type a browser renders as a page: a report served
// as it gets reportCSP, whichever format it is.
const htmlType = "text/html"

// getReport answers the cross-target report of a run in the format the
// format parameter names or, without one, the Accept header prefers
// (JSON when it accepts anything).
func (s *Server) getReport(w http.ResponseWriter, r *http.Request) {
	format, err := reportFormat(r)
	if err != nil {
		s.writeReportError(w, r, err)
		return
	}
	threshold, err := parseThreshold(r.URL.Query().Get("threshold"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	maxErrors, err := parseMaxErrors(r.URL.Query().Get("maxErrors"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id, err := runID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	run, err := s.cfg.Store.FindRunByID(r.Context(), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	src, err := report.LoadSource(r.Context(), s.cfg.Store, run, s.cfg.Targets, format.NeedsSeries)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rep := analysis.Analyze(run, analysis.ReportOptions{MinEffect: threshold, MaxErrors: maxErrors / 100})
	src.Report = &rep
	var buf bytes.Buffer
	if err := report.WriteReport(&buf, src, format.Name); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeReportBody(w, run.ID, format, buf.Bytes())
}

func writeReportBody(w http.ResponseWriter, id string, format report.Format, body []byte) {
	h := w.Header()
	h.Set("Content-Type", format.ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Vary", "Accept")
	if format.MediaType == htmlType {
		h.Set("Content-Security-Policy", reportCSP)
	}
	if format.NamesFile {
		h.Set("Content-Disposition", `inline; filename="threadbench-`+id+"."+format.Extension+`"`)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// errNotAcceptable is a report no format of which the client accepts.
type errNotAcceptable struct{ accept string }

func (e errNotAcceptable) Error() string {
	return "no report format matches Accept " + quoteClipped(e.accept) + " (formats: " + strings.Join(report.FormatNames(report.KindReport), ", ") + ")"
}

// writeReportError answers a format that cannot be served: 406 for an
// Accept header nothing matches, the usual problem otherwise.
func (s *Server) writeReportError(w http.ResponseWriter, r *http.Request, err error) {
	if na, ok := err.(errNotAcceptable); ok {
		s.writeProblem(w, r, http.StatusNotAcceptable, na.Error(), "Accept")
		return
	}
	s.writeError(w, r, err)
}

// reportFormat is the format parameter, checked, or the format the Accept
// header prefers.
func reportFormat(r *http.Request) (report.Format, error) {
	if f := r.URL.Query().Get("format"); f != "" || r.URL.Query().Has("format") {
		// Clipped before the lookup so that the error echoes no more than
		// maxEcho of it: no format's name is that long.
		return report.LookupFormat(report.KindReport, clip(f, maxEcho), "format")
	}
	return negotiate(r.Header.Values("Accept"))
}

// negotiate picks the format an Accept header prefers: the highest q, then
// the most specific range, then the registry's Accept order. No header, or
// */*, means the first of that order, JSON.
func negotiate(accept []string) (report.Format, error) {
	formats := report.AcceptOrder(report.KindReport)
	header := strings.Join(accept, ",")
	if strings.TrimSpace(header) == "" {
		return formats[0], nil
	}
	var best report.Format
	bestQ, bestSpecific := 0.0, -1
	for _, part := range strings.Split(header, ",") {
		mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(v, 64); err != nil {
				continue
			}
		}
		for _, f := range formats {
			specific, ok := matches(mediaType, f.MediaType)
			if !ok || q <= 0 {
				continue
			}
			if q > bestQ || (q == bestQ && specific > bestSpecific) {
				best, bestQ, bestSpecific = f, q, specific
			}
			break
		}
	}
	if best.Name == "" {
		return report.Format{}, errNotAcceptable{accept: header}
	}
	return best, nil
}

// matches reports whether a media range covers a media type, and how
// specific the range is: 2 exact, 1 type/*, 0 */*.
func matches(mediaRange, mediaType string) (int, bool) {
	switch {
	case mediaRange == mediaType:
		return 2, true
	case mediaRange == "*/*":
		return 0, true
	case strings.HasSuffix(mediaRange, "/*") && strings.HasPrefix(mediaType, strings.TrimSuffix(mediaRange, "*")):
		return 1, true
	}
	return 0, false
}

// parseMaxErrors reads the maxErrors query parameter, a percentage; the
// default when absent.
func parseMaxErrors(v string) (float64, error) {
	if v == "" {
		return 100 * bench.DefaultMaxErrors, nil
	}
	p, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, bench.FieldErrorf("maxErrors", "must be a percentage above 0 and at most 100, got %q", v)
	}
	return p, bench.CheckMaxErrors("maxErrors", p)
}

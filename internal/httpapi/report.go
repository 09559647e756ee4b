package httpapi

import (
	"bytes"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

// reportTypes are the media types of the report's formats, in the order
// Accept negotiation prefers them when a client accepts several equally.
var reportTypes = []struct{ format, mediaType string }{
	{report.FormatJSON, "application/json"},
	{report.FormatHTML, "text/html"},
	{report.FormatMarkdown, "text/markdown"},
	{report.FormatCSV, "text/csv"},
	{report.FormatTable, "text/plain"},
}

// reportCSP lets the HTML report do what it needs and nothing more: its
// inline styles and SVG; no script, no request anywhere.
const reportCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

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
	src := report.Source{Run: run, Targets: s.cfg.Targets}
	if format == report.FormatHTML {
		if src.Series, err = report.LoadSeries(r.Context(), s.cfg.Store, run, s.cfg.Targets); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	var buf bytes.Buffer
	if err := report.WriteReport(&buf, src, format, report.ReportOptions{MinEffect: threshold}); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeReportBody(w, run.ID, format, buf.Bytes())
}

func writeReportBody(w http.ResponseWriter, id, format string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", mediaTypeOf(format)+"; charset=utf-8")
	if format == report.FormatJSON {
		h.Set("Content-Type", "application/json")
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Vary", "Accept")
	switch format {
	case report.FormatHTML:
		h.Set("Content-Security-Policy", reportCSP)
	case report.FormatCSV:
		h.Set("Content-Disposition", `inline; filename="threadbench-`+id+`.csv"`)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

func mediaTypeOf(format string) string {
	for _, t := range reportTypes {
		if t.format == format {
			return t.mediaType
		}
	}
	return "application/octet-stream"
}

// errNotAcceptable is a report no format of which the client accepts.
type errNotAcceptable struct{ accept string }

func (e errNotAcceptable) Error() string {
	return "no report format matches Accept " + quoteClipped(e.accept) + " (formats: " + strings.Join(report.ReportFormats, ", ") + ")"
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
func reportFormat(r *http.Request) (string, error) {
	if f := r.URL.Query().Get("format"); f != "" || r.URL.Query().Has("format") {
		for _, valid := range report.ReportFormats {
			if f == valid {
				return f, nil
			}
		}
		return "", bench.FieldErrorf("format", "unknown format %s (valid: %s)", quoteClipped(f), strings.Join(report.ReportFormats, ", "))
	}
	return negotiate(r.Header.Values("Accept"))
}

// negotiate picks the format an Accept header prefers: the highest q, then
// the most specific range, then reportTypes' order. No header, or */*,
// means JSON.
func negotiate(accept []string) (string, error) {
	header := strings.Join(accept, ",")
	if strings.TrimSpace(header) == "" {
		return report.FormatJSON, nil
	}
	best, bestQ, bestSpecific := "", 0.0, -1
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
		for _, t := range reportTypes {
			specific, ok := matches(mediaType, t.mediaType)
			if !ok || q <= 0 {
				continue
			}
			if q > bestQ || (q == bestQ && specific > bestSpecific) {
				best, bestQ, bestSpecific = t.format, q, specific
			}
			break
		}
	}
	if best == "" {
		return "", errNotAcceptable{accept: header}
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

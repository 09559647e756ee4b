package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/threadbench/threadbench/internal/bench"
)

// kin-openapi reads text/plain and text/csv bodies as text; the report's
// HTML and markdown are text too.
func init() {
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/markdown", openapi3filter.PlainBodyDecoder)
}

// reportEnv serves sampleRun as r1 and records which series were read.
func reportEnv(t *testing.T) (*env, *[]string) {
	t.Helper()
	e := newEnv(t)
	var seriesOf []string
	e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) {
		if id != "r1" {
			return nil, notFound(id)
		}
		return sampleRun(id, bench.RunSucceeded), nil
	}
	e.store.FindSeriesFn = func(_ ctxT, run, target string, names []string) ([]bench.Series, error) {
		seriesOf = append(seriesOf, target)
		return []bench.Series{{Name: "go_goroutines", Points: []bench.Point{{T: 0, V: 5}, {T: 1, V: 9}}}}, nil
	}
	return e, &seriesOf
}

func TestGetReport(t *testing.T) {
	tests := []struct {
		name        string
		query       string
		accept      string
		contentType string
		body        string // the body contains this
		series      bool   // the series were read
	}{
		// format= decides, whatever Accept says.
		{"json", "?format=json", "text/html", "application/json", `"subjects": [`, false},
		{"html", "?format=html", "", "text/html; charset=utf-8", `<svg xmlns="http://www.w3.org/2000/svg" class="chart"`, true},
		{"markdown", "?format=markdown", "", "text/markdown; charset=utf-8", "## Report of run r1", false},
		{"csv", "?format=csv", "", "text/csv; charset=utf-8", "row,target,label,round,stage", false},
		{"table", "?format=table", "", "text/plain; charset=utf-8", "Report of run r1\n", false},
		// Without format=, Accept decides: JSON when anything goes.
		{"no Accept", "", "", "application/json", `"findings": [`, false},
		{"any", "", "*/*", "application/json", `"findings": [`, false},
		{"a browser", "", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "text/html; charset=utf-8", "<!DOCTYPE html>", true},
		{"by q", "", "text/csv;q=0.5, text/markdown", "text/markdown; charset=utf-8", "## Report", false},
		{"text/*", "", "text/*", "text/html; charset=utf-8", "<!DOCTYPE html>", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, seriesOf := reportEnv(t)
			req := e.newRequest(t, "GET", "/runs/r1/report"+tt.query, "")
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			resp := e.send(t, req)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, resp.body)
			}
			if got := resp.Header.Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type = %q, want %q", got, tt.contentType)
			}
			if !strings.Contains(string(resp.body), tt.body) {
				t.Errorf("body lacks %q:\n%.400s", tt.body, resp.body)
			}
			if got := len(*seriesOf) > 0; got != tt.series {
				t.Errorf("series read = %v (%v), want %v: only the HTML report charts them", got, *seriesOf, tt.series)
			}
			if !strings.Contains(resp.Header.Get("Vary"), "Accept") {
				t.Errorf("Vary = %q, want Accept", resp.Header.Get("Vary"))
			}
			conforms(t, req, resp)
		})
	}
}

func TestGetReport_JSONIsTheReport(t *testing.T) {
	e, _ := reportEnv(t)
	resp := e.do(t, "GET", "/runs/r1/report?format=json&threshold=10", "")
	rep := decode[bench.Report](t, resp)
	if got, want := rep.Run.ID, "r1"; got != want {
		t.Errorf("run = %q, want %q", got, want)
	}
	if got, want := rep.MinEffect, 10.0; got != want {
		t.Errorf("minEffect = %v, want the threshold %v", got, want)
	}
	if len(rep.Subjects) != 1 || rep.Subjects[0].Label != "go" || len(rep.Scopes) == 0 {
		t.Errorf("report = %+v, want go over its scopes", rep)
	}
}

func TestGetReport_HTMLStaysHome(t *testing.T) {
	e, _ := reportEnv(t)
	resp := e.do(t, "GET", "/runs/r1/report?format=html", "")
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "style-src 'unsafe-inline'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	for _, banned := range []string{"<script", "http://", "https://", "<link", "@import"} {
		body := strings.ReplaceAll(string(resp.body), `xmlns="http://www.w3.org/2000/svg"`, "")
		if strings.Contains(body, banned) {
			t.Errorf("the HTML report contains %q: it must need nothing from anywhere", banned)
		}
	}
}

func TestGetReport_Errors(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		accept string
		status int
		field  string
	}{
		{"ErrFormatUnknown", "/runs/r1/report?format=pdf", "", http.StatusBadRequest, "format"},
		{"ErrFormatEmpty", "/runs/r1/report?format=", "", http.StatusBadRequest, "format"},
		{"ErrThreshold", "/runs/r1/report?threshold=-1", "", http.StatusBadRequest, "threshold"},
		{"ErrMaxErrorsZero", "/runs/r1/report?maxErrors=0", "", http.StatusBadRequest, "maxErrors"},
		{"ErrMaxErrorsOver", "/runs/r1/report?maxErrors=101", "", http.StatusBadRequest, "maxErrors"},
		{"ErrMaxErrorsWord", "/runs/r1/report?maxErrors=some", "", http.StatusBadRequest, "maxErrors"},
		{"ErrNotAcceptable", "/runs/r1/report", "image/png", http.StatusNotAcceptable, "Accept"},
		{"ErrRunNotFound", "/runs/nope/report?format=html", "", http.StatusNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := reportEnv(t)
			req := e.newRequest(t, "GET", tt.path, "")
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			resp := e.send(t, req)
			p := problem(t, resp, tt.status)
			if p.Field != tt.field {
				t.Errorf("field = %q, want %q (%s)", p.Field, tt.field, p.Detail)
			}
			conforms(t, req, resp)
		})
	}
}

func TestGetReport_CSVNamesItsFile(t *testing.T) {
	e, _ := reportEnv(t)
	resp := e.do(t, "GET", "/runs/r1/report?format=csv", "")
	if got, want := resp.Header.Get("Content-Disposition"), `inline; filename="threadbench-r1.csv"`; got != want {
		t.Errorf("Content-Disposition = %q, want %q", got, want)
	}
	lines := strings.Split(strings.TrimSpace(string(resp.body)), "\n")
	if len(lines) < 2 || !slices.Contains(strings.Split(lines[0], ","), "throughput_rps") {
		t.Errorf("csv = %q, want a header and rows", lines)
	}
	var probe map[string]any
	if json.Unmarshal(resp.body, &probe) == nil {
		t.Error("the CSV report is JSON")
	}
}

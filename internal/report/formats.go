package report

import (
	"io"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/check"
	"github.com/threadbench/threadbench/internal/trend"
)

// Output formats, by the names --output, --format and ?format= take.
const (
	FormatTable    = "table"
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
	FormatCSV      = "csv"
	FormatHTML     = "html"
	FormatJUnit    = "junit"
)

// A Kind is a thing this package writes: a run, a list of runs, a
// comparison, a catalog... Each format writes some kinds, not all.
type Kind int

// The kinds, one per Write function.
const (
	KindRun           Kind = iota // WriteRun
	KindRunList                   // WriteRunList
	KindComparison                // WriteComparison
	KindTargets                   // WriteTargets
	KindProfiles                  // WriteProfiles
	KindExperiments               // WriteExperiments
	KindExperimentRun             // WriteExperimentRun
	KindReport                    // WriteReport
	KindCheck                     // WriteCheck
	KindTrend                     // WriteTrend
)

// Kinds are every kind, in the order above.
var Kinds = []Kind{KindRun, KindRunList, KindComparison, KindTargets, KindProfiles, KindExperiments, KindExperimentRun, KindReport, KindCheck, KindTrend}

// Format is one output format: what the CLI, HTTP and the web page call it
// and how it is served, and its renderer for each kind it writes (nil for
// a kind it does not).
type Format struct {
	Name        string // the value of --output, --format and ?format=
	MediaType   string // what an Accept header names it by
	ContentType string // the Content-Type it is served with
	Extension   string // of a file holding it, without the dot
	Note        string // what help texts say of it beside its name, if anything
	Download    string // the label of the web page's link to the report in it; empty for none
	NeedsSeries bool   // its report draws the series: the caller loads Source.Series
	NamesFile   bool   // served as a named file (Content-Disposition), for the spreadsheet that saves it

	renderers
}

// renderers are a format's writers, one per kind.
type renderers struct {
	run           func(io.Writer, *bench.Run, *bench.Report) error
	runList       func(io.Writer, []bench.RunSummary) error
	comparison    func(io.Writer, bench.Comparison) error
	targets       func(io.Writer, []bench.TargetInfo) error
	profiles      func(io.Writer, []bench.Profile) error
	experiments   func(io.Writer, []bench.Experiment) error
	experimentRun func(io.Writer, *bench.Run) error
	report        func(io.Writer, Source) error
	check         func(io.Writer, check.Result) error
	trend         func(io.Writer, trend.Trend) error
}

// formats are every format, in the order help texts and errors list them.
var formats = []Format{
	{
		Name: FormatTable, MediaType: "text/plain", ContentType: "text/plain; charset=utf-8", Extension: "txt",
		renderers: renderers{
			run: runTable, runList: runListTable, comparison: comparisonTable,
			targets: targetsTable, profiles: profilesTable, experiments: experimentsTable,
			experimentRun: experimentRunTable, report: reportTable, check: checkTable, trend: trendTable,
		},
	},
	{
		Name: FormatMarkdown, MediaType: "text/markdown", ContentType: "text/markdown; charset=utf-8", Extension: "md",
		Note: "pastes into an issue or a PR", Download: "Markdown",
		renderers: renderers{comparison: comparisonMarkdown, experimentRun: experimentRunMarkdown, report: reportMarkdown, check: checkMarkdown},
	},
	{
		Name: FormatJSON, MediaType: "application/json", ContentType: "application/json", Extension: "json",
		Download: "JSON",
		renderers: renderers{
			run: runJSON, runList: jsonList[bench.RunSummary], comparison: jsonOf[bench.Comparison],
			targets: jsonList[bench.TargetInfo], profiles: jsonList[bench.Profile], experiments: jsonList[bench.Experiment],
			report: reportJSON, check: jsonOf[check.Result], trend: jsonOf[trend.Trend],
		},
	},
	{
		Name: FormatCSV, MediaType: "text/csv", ContentType: "text/csv; charset=utf-8", Extension: "csv",
		Note: "one row per target x stage x request and one per target x second", Download: "CSV", NamesFile: true,
		renderers: renderers{report: reportCSV},
	},
	{
		Name: FormatHTML, MediaType: "text/html", ContentType: "text/html; charset=utf-8", Extension: "html",
		Note: "one self-contained page with charts", Download: "HTML (one file)", NeedsSeries: true,
		renderers: renderers{report: reportHTML},
	},
	{
		// A check's verdict only: the one format CI systems read test
		// results in (a test case per target and objective or figure).
		Name: FormatJUnit, MediaType: "application/xml", ContentType: "application/xml; charset=utf-8", Extension: "xml",
		Note: "JUnit XML, which CI systems show as test results", renderers: renderers{check: checkJUnit},
	},
}

// acceptOrder is the order Accept negotiation prefers formats in when a
// client accepts several equally: the API's own JSON first, plain text last.
var acceptOrder = []string{FormatJSON, FormatHTML, FormatMarkdown, FormatCSV, FormatJUnit, FormatTable}

// downloadOrder is the order of the web page's download links.
var downloadOrder = []string{FormatMarkdown, FormatCSV, FormatJSON, FormatHTML}

// ReportFormats are the formats WriteReport writes.
var ReportFormats = FormatNames(KindReport)

// Writes reports whether f writes kind k.
func (f Format) Writes(k Kind) bool {
	switch k {
	case KindRun:
		return f.run != nil
	case KindRunList:
		return f.runList != nil
	case KindComparison:
		return f.comparison != nil
	case KindTargets:
		return f.targets != nil
	case KindProfiles:
		return f.profiles != nil
	case KindExperiments:
		return f.experiments != nil
	case KindExperimentRun:
		return f.experimentRun != nil
	case KindReport:
		return f.report != nil
	case KindCheck:
		return f.check != nil
	case KindTrend:
		return f.trend != nil
	}
	return false
}

// Formats returns the formats that write kind k, in the order help texts
// and errors list them.
func Formats(k Kind) []Format {
	var out []Format
	for _, f := range formats {
		if f.Writes(k) {
			out = append(out, f)
		}
	}
	return out
}

// FormatNames returns the names of Formats(k).
func FormatNames(k Kind) []string {
	var names []string
	for _, f := range Formats(k) {
		names = append(names, f.Name)
	}
	return names
}

// FormatList names the formats of kind k as a sentence does: "table or
// json", "table, markdown or json".
func FormatList(k Kind) string {
	names := FormatNames(k)
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// FormatNotes names the formats of kind k with their notes: "table,
// markdown (pastes into an issue or a PR), json".
func FormatNotes(k Kind) string {
	var parts []string
	for _, f := range Formats(k) {
		if f.Note == "" {
			parts = append(parts, f.Name)
			continue
		}
		parts = append(parts, f.Name+" ("+f.Note+")")
	}
	return strings.Join(parts, ", ")
}

// LookupFormat returns the format called name that writes kind k, or an
// EINVALID error about field naming the formats that do.
func LookupFormat(k Kind, name, field string) (Format, error) {
	if f, ok := find(k, name); ok {
		return f, nil
	}
	return Format{}, unknownFormat(field, name, FormatNames(k))
}

// find returns the format called name that writes kind k.
func find(k Kind, name string) (Format, bool) {
	for _, f := range Formats(k) {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// AcceptOrder returns the formats of kind k in the order Accept
// negotiation prefers them when a client accepts several equally.
func AcceptOrder(k Kind) []Format {
	return inOrder(k, acceptOrder)
}

// Downloads returns the formats the web page offers the report in, in the
// order it lists them.
func Downloads() []Format {
	return inOrder(KindReport, downloadOrder)
}

// inOrder returns the formats of kind k that order names, in its order.
func inOrder(k Kind, order []string) []Format {
	var out []Format
	for _, name := range order {
		if f, ok := find(k, name); ok {
			out = append(out, f)
		}
	}
	return out
}

// unknownFormat is the one wording of a format that is not among valid.
func unknownFormat(field, name string, valid []string) error {
	return bench.FieldErrorf(field, "unknown format %q (valid: %s)", name, strings.Join(valid, ", "))
}

// lookup is LookupFormat for a Write function's format, the CLI's --output.
func lookup(k Kind, name string) (Format, error) {
	return LookupFormat(k, name, "output")
}

// runJSON writes the run document, indented: its analysis is not part of it.
func runJSON(w io.Writer, r *bench.Run, _ *bench.Report) error { return writeJSON(w, r) }

// jsonOf writes v indented.
func jsonOf[T any](w io.Writer, v T) error { return writeJSON(w, v) }

// jsonList writes a list indented, [] when there is none.
func jsonList[T any](w io.Writer, list []T) error { return writeJSON(w, nonNil(list)) }

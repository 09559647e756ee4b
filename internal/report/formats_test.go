package report_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

// TestFormats pins which formats write which kind, in the order help texts
// and errors list them.
func TestFormats(t *testing.T) {
	tests := []struct {
		kind report.Kind
		want []string
	}{
		{report.KindRun, []string{"table", "json"}},
		{report.KindRunList, []string{"table", "json"}},
		{report.KindComparison, []string{"table", "markdown", "json"}},
		{report.KindTargets, []string{"table", "json"}},
		{report.KindProfiles, []string{"table", "json"}},
		{report.KindExperiments, []string{"table", "json"}},
		{report.KindExperimentRun, []string{"table", "markdown"}}, // the seed's tables: for reading, not for programs
		{report.KindReport, []string{"table", "markdown", "json", "csv", "html"}},
		{report.KindCheck, []string{"table", "markdown", "json", "junit"}},
		{report.KindTrend, []string{"table", "json"}},
	}
	if len(tests) != len(report.Kinds) {
		t.Fatalf("%d kinds tested, %d kinds", len(tests), len(report.Kinds))
	}
	for _, tt := range tests {
		if got := report.FormatNames(tt.kind); !slices.Equal(got, tt.want) {
			t.Errorf("kind %d: formats %v, want %v", tt.kind, got, tt.want)
		}
	}
}

// TestFormats_Served checks what HTTP and the web page need of every
// format: a media type, the Content-Type it is served with, an extension,
// one name and one media type per format.
func TestFormats_Served(t *testing.T) {
	names, mediaTypes := map[string]bool{}, map[string]bool{}
	for _, k := range report.Kinds {
		for _, f := range report.Formats(k) {
			if f.MediaType == "" || f.Extension == "" || !strings.HasPrefix(f.ContentType, f.MediaType) {
				t.Errorf("%s: media type %q, content type %q, extension %q", f.Name, f.MediaType, f.ContentType, f.Extension)
			}
			names[f.Name], mediaTypes[f.MediaType] = true, true
		}
	}
	if len(names) != len(mediaTypes) {
		t.Errorf("%d formats, %d media types: two formats share one", len(names), len(mediaTypes))
	}
}

func TestFormatList(t *testing.T) {
	tests := []struct {
		kind report.Kind
		want string
	}{
		{report.KindRun, "table or json"},
		{report.KindComparison, "table, markdown or json"},
	}
	for _, tt := range tests {
		if got := report.FormatList(tt.kind); got != tt.want {
			t.Errorf("FormatList(%d) = %q, want %q", tt.kind, got, tt.want)
		}
	}
}

func TestFormatNotes(t *testing.T) {
	got := report.FormatNotes(report.KindComparison)
	if want := "table, markdown (pastes into an issue or a PR), json"; got != want {
		t.Errorf("FormatNotes = %q, want %q", got, want)
	}
}

func TestLookupFormat(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		f, err := report.LookupFormat(report.KindReport, "csv", "format")
		if err != nil {
			t.Fatal(err)
		}
		if f.Name != "csv" || f.MediaType != "text/csv" || f.Extension != "csv" {
			t.Errorf("csv is %+v", f)
		}
	})
	t.Run("ErrNotOfKind", func(t *testing.T) {
		_, err := report.LookupFormat(report.KindRun, "markdown", "format")
		if got, want := bench.ErrorCode(err), bench.EINVALID; got != want {
			t.Fatalf("code = %q, want %q (err %v)", got, want, err)
		}
		if got, want := err.Error(), `format: unknown format "markdown" (valid: table, json)`; got != want {
			t.Errorf("err = %q, want %q", got, want)
		}
	})
}

// TestAcceptOrder checks that negotiation knows every format of every kind,
// and the order it prefers the report's in.
func TestAcceptOrder(t *testing.T) {
	for _, k := range report.Kinds {
		got := names(report.AcceptOrder(k))
		if want := report.FormatNames(k); !sameSet(got, want) {
			t.Errorf("kind %d: Accept negotiates %v, the kind has %v", k, got, want)
		}
	}
	if got, want := names(report.AcceptOrder(report.KindReport)), []string{"json", "html", "markdown", "csv", "table"}; !slices.Equal(got, want) {
		t.Errorf("report: Accept prefers %v, want %v", got, want)
	}
}

// TestDownloads checks that the web page links every format that has a
// download label, in the page's order.
func TestDownloads(t *testing.T) {
	var labelled []string
	for _, f := range report.Formats(report.KindReport) {
		if f.Download != "" {
			labelled = append(labelled, f.Name)
		}
	}
	got := names(report.Downloads())
	if !sameSet(got, labelled) {
		t.Errorf("the page links %v, the formats with a label are %v", got, labelled)
	}
	if want := []string{"markdown", "csv", "json", "html"}; !slices.Equal(got, want) {
		t.Errorf("the page links %v, want %v", got, want)
	}
}

func names(formats []report.Format) []string {
	var out []string
	for _, f := range formats {
		out = append(out, f.Name)
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}

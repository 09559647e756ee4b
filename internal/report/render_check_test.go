package report_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/check"
	"github.com/threadbench/threadbench/internal/report"
)

// failedCheck is a check of the head fixture against the base: objectives
// that hold and one that does not, java-platform's regressions, go's
// better latency, and java-virtual only in the baseline.
func failedCheck(t *testing.T) check.Result {
	t.Helper()
	head := analysistest.HeadRun(t)
	head.Spec.Labels = map[string]string{"branch": "faster-pool", "commit": "9d8e7f6"}
	var objectives []check.Objective
	for _, s := range []string{"go:throughput>=100,p99<=250ms,errors<=1%", "java-platform:errors<=0.1%"} {
		o, err := check.ParseObjective(s)
		if err != nil {
			t.Fatal(err)
		}
		objectives = append(objectives, o)
	}
	cmp := analysis.Compare(analysistest.BaseRun(t), head, analysis.CompareOptions{})
	return check.Judge(head, objectives, &check.Against{Comparison: cmp, ChosenBy: "label:branch=main"})
}

// quietCheck is a run checked against itself: nothing failed or changed.
func quietCheck(t *testing.T) check.Result {
	t.Helper()
	base := analysistest.BaseRun(t)
	o, err := check.ParseObjective("go:throughput>=100")
	if err != nil {
		t.Fatal(err)
	}
	cmp := analysis.Compare(base, base, analysis.CompareOptions{})
	return check.Judge(base, []check.Objective{o}, &check.Against{Comparison: cmp, ChosenBy: "run-base"})
}

func TestWriteCheck_Golden(t *testing.T) {
	for _, tt := range []struct {
		name, format string
		result       func(*testing.T) check.Result
	}{
		{"check", "table", failedCheck},
		{"check", "markdown", failedCheck},
		{"check", "junit", failedCheck},
		{"check_quiet", "table", quietCheck},
		{"check_quiet", "markdown", quietCheck},
	} {
		t.Run(tt.name+"."+tt.format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.WriteCheck(&buf, tt.result(t), tt.format); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name+"."+tt.format+".golden", buf.Bytes())
		})
	}
}

// TestWriteCheck_QuietSummary is one line when nothing failed or changed.
func TestWriteCheck_QuietSummary(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteCheck(&buf, quietCheck(t), "markdown"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(buf.String(), "\n"); got != 1 {
		t.Errorf("%d lines, want 1:\n%s", got, buf.String())
	}
}

// junitRead is what a JUnit reader takes from the document: suites, their
// counts, and each case with its outcome.
type junitRead struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      int    `xml:"tests,attr"`
		Failures   int    `xml:"failures,attr"`
		Skipped    int    `xml:"skipped,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
			} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestWriteCheck_JUnitReadsBack parses the JUnit XML back: one suite, a
// case per target and objective term and per compared figure, the
// failures the check's, each with its figures in the message.
func TestWriteCheck_JUnitReadsBack(t *testing.T) {
	r := failedCheck(t)
	var buf bytes.Buffer
	if err := report.WriteCheck(&buf, r, "junit"); err != nil {
		t.Fatal(err)
	}
	var doc junitRead
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, buf.String())
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d suites, want 1", len(doc.Suites))
	}
	s := doc.Suites[0]
	if got, want := len(s.Cases), len(r.Objectives)+len(r.Figures); got != want || s.Tests != want || doc.Tests != want {
		t.Errorf("%d cases (suite says %d, document %d), want %d", got, s.Tests, doc.Tests, want)
	}
	failures := map[string]bool{}
	for _, c := range s.Cases {
		if c.Failure != nil {
			failures[c.Failure.Message] = true
			if c.Classname == "" || !strings.Contains(c.Failure.Message, c.Classname) {
				t.Errorf("case %s/%s: failure %q does not name its target", c.Classname, c.Name, c.Failure.Message)
			}
		}
	}
	for _, f := range r.Failures() {
		if !failures[strings.TrimPrefix(f, "regression: ")] {
			t.Errorf("failure %q is no case's", f)
		}
	}
	if s.Failures != len(failures) || doc.Failures != len(failures) {
		t.Errorf("suite counts %d failures, document %d, cases %d", s.Failures, doc.Failures, len(failures))
	}
	props := map[string]string{}
	for _, p := range s.Properties {
		props[p.Name] = p.Value
	}
	if props["run"] != "run-head" || props["baseline"] != "run-base" || props["label.branch"] != "faster-pool" {
		t.Errorf("properties %v", props)
	}
}

package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/check"
)

// JUnit XML as CI systems read it (the Ant schema Jenkins, GitLab and the
// GitHub test reporters share): one test suite for the checked run, a
// test case per target and objective term and per target, scope and
// compared figure, a failure carrying the figures.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Timestamp  string          `xml:"timestamp,attr,omitempty"`
		Properties []junitProperty `xml:"properties>property,omitempty"`
		Cases      []junitCase     `xml:"testcase"`
		SystemOut  string          `xml:"system-out,omitempty"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Failure   *junitOutcome `xml:"failure,omitempty"`
		Skipped   *junitOutcome `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitOutcome struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
)

// junitTimestamp is the schema's xs:dateTime without a zone (UTC).
const junitTimestamp = "2006-01-02T15:04:05"

func checkJUnit(w io.Writer, r check.Result) error {
	suite := junitSuite{Name: "threadbench check " + r.Run.ID, Properties: junitProperties(r)}
	if !r.Run.CreatedAt.IsZero() {
		suite.Timestamp = r.Run.CreatedAt.UTC().Format(junitTimestamp)
	}
	for _, o := range r.Objectives {
		suite.add(objectiveCase(o))
	}
	for _, f := range r.Figures {
		suite.add(figureCase(f))
	}
	suite.SystemOut = strings.Join(r.Warnings, "\n")
	doc := junitSuites{Name: "threadbench check", Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped,
		Suites: []junitSuite{suite}}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode junit: %w", err)
	}
	buf.WriteByte('\n')
	return flush(w, &buf)
}

func (s *junitSuite) add(c junitCase) {
	s.Cases = append(s.Cases, c)
	s.Tests++
	if c.Failure != nil {
		s.Failures++
	}
	if c.Skipped != nil {
		s.Skipped++
	}
}

// junitProperties are the run, its baseline and its labels.
func junitProperties(r check.Result) []junitProperty {
	props := []junitProperty{{"run", r.Run.ID}}
	if r.Run.Name != "" {
		props = append(props, junitProperty{"name", r.Run.Name})
	}
	if b := r.Baseline; b != nil {
		props = append(props, junitProperty{"baseline", b.Run.ID}, junitProperty{"baseline.chosenBy", b.ChosenBy},
			junitProperty{"minEffect", fmt.Sprintf("%g%%", b.MinEffect)}, junitProperty{"alpha", fmt.Sprintf("%g", b.Alpha)})
	}
	for _, k := range slices.Sorted(maps.Keys(r.Labels)) {
		props = append(props, junitProperty{"label." + k, r.Labels[k]})
	}
	return props
}

func objectiveCase(o check.ObjectiveVerdict) junitCase {
	c := junitCase{Name: "objective " + o.Term.String(), Classname: o.Target, SystemOut: o.Message}
	if !o.Passed {
		c.Failure = &junitOutcome{Message: o.Message, Type: "objective", Text: o.Message}
	}
	return c
}

func figureCase(f check.FigureVerdict) junitCase {
	c := junitCase{Name: "baseline " + f.Scope + " " + f.Delta.Name, Classname: f.Target, SystemOut: f.Message}
	switch {
	case f.Failed:
		c.Failure = &junitOutcome{Message: f.Message, Type: "regression", Text: f.Message + "\n" + verdictCell(f.Delta, false)}
	case !f.Tested():
		c.Skipped = &junitOutcome{Message: verdictCell(f.Delta, false) + ": " + f.Message}
	}
	return c
}

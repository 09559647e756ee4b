// Package jmcrules runs JDK Mission Control's automated analysis, the rules
// of org.openjdk.jmc:flightrecorder.rules.jdk, on a flight recording and
// returns each rule's result: what JMC would flag on its "Automated
// Analysis Results" page, for the Java targets' recordings.
//
// JMC is a Java library, so the analysis runs in a host JDK: a small
// embedded program (java/JmcRules.java) is compiled once against JMC's
// jars, which are downloaded once from a Maven repository, and run on
// each recording. Both are kept in the user's cache directory.
package jmcrules

import (
	"cmp"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/threadbench/threadbench/internal/jdk"
)

// Severity is how much a rule's result matters, as JMC grades it.
type Severity string

// The severities of JMC's rules (org.openjdk.jmc.flightrecorder.rules.Severity).
const (
	SeverityOK      Severity = "OK"      // the rule looked and found nothing wrong
	SeverityInfo    Severity = "INFO"    // worth knowing, not a problem
	SeverityWarning Severity = "WARNING" // a likely problem
	SeverityNA      Severity = "NA"      // not applicable: the recording lacks the events the rule needs
	SeverityIgnore  Severity = "IGNORE"  // the rule chose not to say anything
)

// Rule is one rule's result on a recording. The texts are JMC's, filled in
// with the rule's values, in plain text (no HTML), in English; any of them
// may be empty.
type Rule struct {
	ID          string   `json:"id"`    // e.g. "JavaBlocking"; stable across JMC versions
	Name        string   `json:"name"`  // e.g. "Java Blocking"
	Topic       string   `json:"topic"` // the page of JMC the rule belongs to, e.g. "lock_instances"
	Severity    Severity `json:"severity,omitempty"`
	Score       *float64 `json:"score,omitempty"` // 0-100, higher is worse; nil when the rule gave none (an NA result, say)
	Summary     string   `json:"summary,omitempty"`
	Explanation string   `json:"explanation,omitempty"`
	Solution    string   `json:"solution,omitempty"`
	// Error says why the rule gave no result (it failed, or was not done
	// within Analyzer.RulesTimeout); Severity is then empty.
	Error string `json:"error,omitempty"`
}

// Result is what JMC's rules said about one recording.
type Result struct {
	Version   string `json:"version"`   // JMC's version, e.g. "9.1.0"
	JDK       string `json:"jdk"`       // the JDK that ran the rules
	Recording string `json:"recording"` // the recording's path
	Rules     []Rule `json:"rules"`     // every rule, sorted by ID
	// Seconds is how long Analyze took in all, downloads and compilation
	// included; LoadSeconds and RulesSeconds are the parts JMC spent
	// reading the recording and running the rules.
	Seconds      float64 `json:"seconds"`
	LoadSeconds  float64 `json:"loadSeconds"`
	RulesSeconds float64 `json:"rulesSeconds"`
}

// Warnings returns the rules whose severity is WARNING, the highest score
// first (those without a score last, then by ID).
func (r *Result) Warnings() []Rule {
	var warnings []Rule
	for _, rule := range r.Found() {
		if rule.Severity == SeverityWarning {
			warnings = append(warnings, rule)
		}
	}
	return warnings
}

// Found returns the rules that found something: the warnings, then the
// informations, each highest score first (rules without a score last),
// then by id.
func (r *Result) Found() []Rule {
	var found []Rule
	for _, rule := range r.Rules {
		if rule.Severity == SeverityWarning || rule.Severity == SeverityInfo {
			found = append(found, rule)
		}
	}
	slices.SortStableFunc(found, func(a, b Rule) int {
		return cmp.Or(boolRank(a.Severity == SeverityInfo, b.Severity == SeverityInfo), cmp.Compare(scoreOf(b), scoreOf(a)), cmp.Compare(a.ID, b.ID))
	})
	return found
}

// boolRank orders false before true.
func boolRank(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// scoreOf returns a rule's score, -1 (below any JMC gives) when it has none.
func scoreOf(r Rule) float64 {
	if r.Score == nil {
		return -1
	}
	return *r.Score
}

// DefaultRulesTimeout is how long the rules may take, together, once the
// recording is loaded. On a 2-CPU host they take about half a second on
// a 0.6 MB recording; the bound is for a rule that never ends on some
// recording, which would otherwise take every other rule's result with it.
const DefaultRulesTimeout = 2 * time.Minute

// Analyzer runs JMC's rules on one JDK, with jars from one Maven repository,
// keeping jars and the compiled program in one cache directory.
type Analyzer struct {
	JDK jdk.JDK // runs the rules; JMC 9.1.0 needs Java 17 or newer
	// Repository is the Maven repository's base URL (DefaultRepository).
	Repository string
	// CacheDir holds the jars (CacheDir/jmc/9.1.0) and the compiled
	// program; "" keeps both in a temporary directory for one call, which
	// downloads and compiles every time.
	CacheDir     string
	Client       *http.Client  // downloads the jars
	RulesTimeout time.Duration // 0 means DefaultRulesTimeout
}

// New returns the Analyzer of this host: its newest JDK 21 or later
// (jdk.Find), the repository $THREADBENCH_MAVEN_REPO names or Maven
// Central, and the user's cache directory (~/.cache/threadbench). Without a
// JDK it returns an EUNAVAILABLE *bench.Error.
func New() (*Analyzer, error) {
	j, err := jdk.Find()
	if err != nil {
		return nil, err
	}
	a := &Analyzer{JDK: j, Repository: cmp.Or(os.Getenv(RepositoryEnv), DefaultRepository)}
	// Without a cache directory (no $HOME) each call works in a temporary one.
	if root, err := os.UserCacheDir(); err == nil {
		a.CacheDir = filepath.Join(root, "threadbench")
	}
	return a, nil
}

// Analyze runs JMC's rules on the recording with the host's Analyzer (New).
func Analyze(ctx context.Context, recording string) (*Result, error) {
	a, err := New()
	if err != nil {
		return nil, err
	}
	return a.Analyze(ctx, recording)
}

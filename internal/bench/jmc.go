package bench

// JMCAnalysis is JDK Mission Control's automated analysis of a JVM's
// whole recording (its rules, internal/jmcrules): a second opinion beside
// the why, which a Java performance engineer opens first.
type JMCAnalysis struct {
	Version string  `json:"version"` // JMC's, e.g. "9.1.0"
	Seconds float64 `json:"seconds"` // what the analysis took
	// Rules are the rules that found something (WARNING, then INFO),
	// highest score first; OK counts those that found nothing.
	Rules []JMCRule `json:"rules,omitempty"`
	OK    int       `json:"ok"`
	// Disagree says where JMC's warnings and the why part: a warning no
	// stage's cause agrees with, a cause no rule warned of.
	Disagree []string `json:"disagree,omitempty"`
	// Error says why the rules did not run (no host JDK, JMC's jars not
	// reachable); nothing else is set then.
	Error string `json:"error,omitempty"`
}

// JMCRule is one rule's result, in JMC's words.
type JMCRule struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Topic    string `json:"topic,omitempty"`
	Severity string `json:"severity"` // WARNING, INFO
	// Score is JMC's 0-100, absent for a rule that gives none.
	Score       *float64 `json:"score,omitempty"`
	Summary     string   `json:"summary,omitempty"`
	Explanation string   `json:"explanation,omitempty"`
	Solution    string   `json:"solution,omitempty"`
}

// Warnings returns the rules that warned.
func (a *JMCAnalysis) Warnings() []JMCRule {
	if a == nil {
		return nil
	}
	var out []JMCRule
	for _, r := range a.Rules {
		if r.Severity == "WARNING" {
			out = append(out, r)
		}
	}
	return out
}

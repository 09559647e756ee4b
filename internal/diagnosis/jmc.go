package diagnosis

import (
	"fmt"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// jmcAgree is a row of jmcRules: the rules of JDK Mission Control
// (their ids, in flightrecorder.rules.jdk 9.1.0) whose warning says what a
// verdict says, so that the two opinions can be held side by side.
type jmcAgree struct {
	Kind  string
	Rules []string
}

// jmcRules pair the why's verdicts with JMC's rules. A verdict with no
// row (pinned: JMC 9.1.0 has no rule on virtual threads; pool-bound, the
// database's pool: JMC sees no pool) is not compared. JMC judges the
// whole recording, warm-up included, and the why each stage: a
// disagreement is a thing to look at, not a proof.
var jmcRules = []jmcAgree{
	{Kind: bench.VerdictGCBound, Rules: []string{"GcPauseRatio", "LongGcPause", "HighGc", "GcStall", "FullGc", "ApplicationHalts"}},
	{Kind: bench.VerdictLockBound, Rules: []string{"JavaBlocking", "ContextSwitch", "SocketRead"}},
	{Kind: bench.VerdictCPUBound, Rules: []string{"HighJvmCpu"}},
}

// AgainstJMC says where JMC's analysis and the stages' whys part: a rule
// that warned where no stage's cause is of its verdict, and a verdict a
// stage reached where none of its rules warned. Stages are numbered from
// 1, as the report says them.
func AgainstJMC(jmc *bench.JMCAnalysis, whys []bench.Diagnosis) []string {
	if jmc == nil || jmc.Error != "" {
		return nil
	}
	found := map[string]int{} // verdict → the first stage that reached it
	for _, d := range whys {
		for _, c := range d.Causes {
			if _, seen := found[c.Kind]; !seen {
				found[c.Kind] = d.Stage
			}
		}
	}
	warned := map[string]bench.JMCRule{}
	for _, r := range jmc.Warnings() {
		warned[r.ID] = r
	}
	var out []string
	for _, row := range jmcRules {
		stage, reached := found[row.Kind]
		var warnings []string
		for _, id := range row.Rules {
			if r, ok := warned[id]; ok {
				warnings = append(warnings, ruleWords(r))
			}
		}
		switch {
		case len(warnings) > 0 && !reached:
			out = append(out, fmt.Sprintf("JMC warns %s, where no stage's why is %s", strings.Join(warnings, "; "), row.Kind))
		case len(warnings) == 0 && reached:
			out = append(out, fmt.Sprintf("the why says %s (stage %d) where none of JMC's %s warned", row.Kind, stage+1, strings.Join(row.Rules, ", ")))
		}
	}
	return out
}

// ruleWords says a rule's warning: "JavaBlocking (score 100: ...)".
func ruleWords(r bench.JMCRule) string {
	s := r.ID
	if r.Score != nil {
		s += fmt.Sprintf(" (score %.0f", *r.Score)
	} else {
		s += " ("
	}
	if r.Summary != "" {
		if r.Score != nil {
			s += ": "
		}
		s += r.Summary
	}
	return strings.TrimSuffix(s, " (") + ")"
}

package inside

import (
	"context"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jmcrules"
)

// analyzeJMC runs JDK Mission Control's rules on the recording at file:
// the rules that found something, and how many found nothing; or why
// they did not run.
func (s *Session) analyzeJMC(ctx context.Context, c Collection, file string) *bench.JMCAnalysis {
	analyze := c.JMC
	if analyze == nil {
		analyze = jmcrules.Analyze
	}
	res, err := analyze(ctx, file)
	if err != nil {
		return &bench.JMCAnalysis{Version: jmcrules.Version, Error: bench.ErrorMessage(err)}
	}
	out := &bench.JMCAnalysis{Version: res.Version, Seconds: res.Seconds}
	for _, r := range res.Found() {
		out.Rules = append(out.Rules, bench.JMCRule{ID: r.ID, Name: r.Name, Topic: r.Topic, Severity: string(r.Severity), Score: r.Score,
			Summary: r.Summary, Explanation: r.Explanation, Solution: r.Solution})
	}
	for _, r := range res.Rules {
		if r.Severity == jmcrules.SeverityOK {
			out.OK++
		}
	}
	return out
}

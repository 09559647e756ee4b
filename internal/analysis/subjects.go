package analysis

import (
	"slices"
	"strconv"

	"github.com/threadbench/threadbench/internal/bench"
)

// subject is what a report compares: the results of one label (a target,
// or a case) across the rounds of a run.
type subject struct {
	info   bench.ReportSubject
	index  int                   // its place in the run: its colour
	rounds []*bench.TargetResult // by round, only those that measured something
	spec   bench.RunSpec         // the spec the label ran under (its case's)
	pool   int                   // threads of the pool that serves its requests; 0 when none bounds it
}

// subjectsOf groups a run's results by label, in the order labels first
// appear.
func subjectsOf(r *bench.Run) []*subject {
	var subjects []*subject
	byLabel := map[string]*subject{}
	for i := range r.Targets {
		t := &r.Targets[i]
		s, ok := byLabel[t.Label()]
		if !ok {
			s = &subject{index: len(subjects), spec: specOf(r.Spec, t.Case),
				info: bench.ReportSubject{Label: t.Label(), Target: t.Target, Engine: t.Engine, Status: bench.TargetSucceeded}}
			byLabel[t.Label()] = s
			subjects = append(subjects, s)
		}
		s.add(t)
	}
	for _, s := range subjects {
		s.pool = poolOf(s)
	}
	return subjects
}

// add takes in one round of the subject.
func (s *subject) add(t *bench.TargetResult) {
	if t.Status != bench.TargetSucceeded && s.info.Status == bench.TargetSucceeded {
		s.info.Status = t.Status
		s.info.Error = roundPrefix(t) + t.Error
	}
	if s.info.Runtime == "" {
		s.info.Runtime = t.Image.Runtime
	}
	if !measured(t) {
		return
	}
	s.rounds = append(s.rounds, t)
	s.info.Rounds = len(s.rounds)
}

// measured reports whether a result measured requests: over its attack,
// or in any trial of a capacity search (whose total is its answer's, and
// absent when it confirmed none).
func measured(t *bench.TargetResult) bool {
	if t.Total != nil && t.Total.Requests > 0 {
		return true
	}
	return t.Capacity != nil && slices.ContainsFunc(t.Stages, func(s bench.StageResult) bool { return s.Stats.Requests > 0 })
}

// roundPrefix names a round after the first in messages: "round 2: ".
func roundPrefix(t *bench.TargetResult) string {
	if t.Round == 0 {
		return ""
	}
	return "round " + strconv.Itoa(t.Round+1) + ": "
}

// specOf is the spec a case ran under.
func specOf(spec bench.RunSpec, caseName string) bench.RunSpec {
	for _, c := range spec.Cases {
		if c.Name == caseName {
			return spec.ForCase(c)
		}
	}
	return spec
}

// poolOf returns the size of the thread pool that serves the subject's
// requests one thread each (Tomcat's on platform threads), or 0 when none
// does: virtual threads and goroutines are one per request, unbounded.
// The target's own record of what ran comes first, then the spec; a run
// stored before targets recorded it is read by the built-in table.
func poolOf(s *subject) int {
	if len(s.rounds) == 0 {
		return 0
	}
	t := s.rounds[0]
	if n, ok := t.PoolThreads(); ok {
		return n
	}
	model, recorded := t.Settings[bench.SettingJavaThreadModel]
	if !recorded && bench.Builtin(t.Target).ThreadModel != bench.ThreadModelPlatform {
		return 0
	}
	if recorded && model != bench.ThreadModelPlatform {
		return 0
	}
	if s.spec.Java.TomcatMaxThreads > 0 {
		return s.spec.Java.TomcatMaxThreads
	}
	return bench.DefaultTomcatMaxThreads
}

// targetName is the catalog name of a subject's target, without variant.
func (s *subject) targetName() string { return bench.ParseTargetRef(s.info.Target).Name }

// FirstRound is a subject of a run beside its first measured round.
type FirstRound struct {
	Subject bench.ReportSubject
	Result  *bench.TargetResult // nil when no round measured anything
}

// FirstRounds returns each subject of r, in the order its label first
// appears (its colour), with its first measured round: what a chart draws.
func FirstRounds(r *bench.Run) []FirstRound {
	var out []FirstRound
	for _, s := range subjectsOf(r) {
		fr := FirstRound{Subject: s.info}
		if len(s.rounds) > 0 {
			fr.Result = s.rounds[0]
		}
		out = append(out, fr)
	}
	return out
}

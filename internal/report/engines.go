package report

import (
	"fmt"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// Where each side of a run ran: the load generator on the orchestrator's
// host, the targets on their engines' hosts. A run wholly on the local
// engine keeps its one "host" line.

// apart reports whether the run's targets ran elsewhere than the load
// generator, or on several engines: then each side gets its own lines.
func apart(env bench.Environment) bool {
	if env.MixedEngines || len(env.Engines) > 1 || len(env.Generators) > 0 {
		return true
	}
	for _, ee := range env.Engines {
		if ee.Remote {
			return true
		}
	}
	return false
}

// hostLines are the header's lines about where the run ran: one "host"
// line, or the load generator's, each engine's, and the mark of a run that
// mixes engines.
func hostLines(env bench.Environment) [][2]string {
	if !apart(env) {
		return [][2]string{{"host", environmentLine(env)}}
	}
	lines := [][2]string{{"load generator", loadGeneratorLine(env)}}
	if len(env.Generators) > 0 {
		lines = [][2]string{{"load generators", generatorsLine(env.Generators)}}
	}
	for _, ee := range env.Engines {
		lines = append(lines, [2]string{"targets on " + ee.Name, engineLine(ee)})
	}
	if env.MixedEngines {
		lines = append(lines, [2]string{"engines", mixedEnginesNote(env)})
	}
	return lines
}

// loadGeneratorLine describes the orchestrator's host and the CPUs the
// load generator had there.
func loadGeneratorLine(env bench.Environment) string {
	cpus := "all its CPUs"
	if env.CPUSplitApplied {
		cpus = "CPUs " + env.LoadCPUSet + " while a target shared the host"
	}
	return fmt.Sprintf("%s, %s x %s, kernel %s; %s", units.OrDash(env.Host), units.OrDash(env.CPUModel), units.OrDash(analysis.CountString(env.CPUs)),
		units.OrDash(env.Kernel), cpus)
}

// engineLine describes an engine's host and the CPUs its targets had.
func engineLine(ee bench.EngineEnvironment) string {
	where := "this host"
	if ee.Remote {
		where = "remote, reached at " + units.OrDash(ee.Address)
	}
	cpus := "any of its CPUs"
	switch {
	case strings.ContainsAny(ee.TargetCPUSet, "-,"):
		cpus = "CPUs " + ee.TargetCPUSet
	case ee.TargetCPUSet != "":
		cpus = "CPU " + ee.TargetCPUSet
	}
	return fmt.Sprintf("%s (%s), %s x %s, kernel %s, docker %s, cgroup %s; %s", units.OrDash(ee.Host), where, units.OrDash(ee.CPUModel),
		units.OrDash(analysis.CountString(ee.CPUs)), units.OrDash(ee.Kernel), units.OrDash(ee.DockerVersion), units.OrDash(ee.CgroupVersion), cpus)
}

// mixedEnginesNote marks a run whose targets ran on different engines.
func mixedEnginesNote(env bench.Environment) string {
	names := make([]string, len(env.Engines))
	for i, ee := range env.Engines {
		names[i] = ee.Name
	}
	return "mixed: the targets ran on " + strings.Join(names, " and ") + ", so their figures differ by host as well as by thread model"
}

// showEngines reports whether the targets table needs an engine column:
// when any subject ran elsewhere than on the local engine.
func showEngines(subjects []bench.ReportSubject) bool {
	for _, s := range subjects {
		if s.Engine != "" && s.Engine != bench.EngineLocal {
			return true
		}
	}
	return false
}

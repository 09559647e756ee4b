package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

// remoteEnvironment is the fixture's host as the load generator's, with
// the targets on a remote engine "lab" (and, mixed, some on local).
func remoteEnvironment(mixed bool) bench.Environment {
	env := analysistest.Environment()
	env.LoadCPUSet, env.TargetCPUSet, env.CPUSplitApplied = "", "", false
	lab := bench.EngineEnvironment{Name: "lab", Remote: true, Address: "198.18.0.2", Machine: bench.Machine{Host: "lab-1", Kernel: "6.1.0-18-amd64",
		CPUModel: "Intel Xeon Gold 6338", CPUs: 32, DockerVersion: "24.0.7", CgroupVersion: "2"}, TargetCPUSet: "30-31"}
	env.Engines = []bench.EngineEnvironment{lab}
	if mixed {
		env.LoadCPUSet, env.TargetCPUSet, env.CPUSplitApplied = "0", "1", true
		local := bench.EngineEnvironment{Name: bench.EngineLocal, Address: "127.0.0.1", Machine: bench.Machine{Host: "bench-1", CPUModel: "AMD EPYC 7B13", CPUs: 2,
			DockerVersion: "20.10.24", CgroupVersion: "1"}, TargetCPUSet: "1"}
		env.Engines, env.MixedEngines = []bench.EngineEnvironment{local, lab}, true
	}
	return env
}

// A report says where each side ran: the load generator's host, each
// engine's host, the engine of each target, and a run mixing engines.
func TestWriteReport_Engines(t *testing.T) {
	for _, tt := range []struct {
		name  string
		mixed bool
		want  []string
		not   []string
	}{
		{"Remote", false, []string{
			"load generator  bench-1, AMD EPYC 7B13 x 2, kernel 6.1.0-18-amd64; all its CPUs",
			"targets on lab  lab-1 (remote, reached at 198.18.0.2), Intel Xeon Gold 6338 x 32, kernel 6.1.0-18-amd64, docker 24.0.7, cgroup 2; CPUs 30-31",
			"TARGET         RUNS           ENGINE",
		}, []string{"mixed", "host bench-1"}},
		{"Mixed", true, []string{
			"load generator  bench-1, AMD EPYC 7B13 x 2, kernel 6.1.0-18-amd64; CPUs 0 while a target shared the host",
			"targets on local  bench-1 (this host), AMD EPYC 7B13 x 2",
			"targets on lab",
			"engines         mixed: the targets ran on local and lab, so their figures differ by host as well as by thread model",
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := threeTargetSource(t)
			src.Run.Environment = remoteEnvironment(tt.mixed)
			for i := range src.Run.Targets {
				src.Run.Targets[i].Engine = "lab"
			}
			if tt.mixed {
				src.Run.Targets[0].Engine = bench.EngineLocal
			}
			var buf bytes.Buffer
			if err := report.WriteReport(&buf, analyzed(src, analysis.ReportOptions{}), report.FormatTable); err != nil {
				t.Fatal(err)
			}
			text := squeeze(buf.String())
			for _, want := range tt.want {
				if !strings.Contains(text, squeeze(want)) {
					t.Errorf("report lacks %q:\n%s", want, head(buf.String(), 30))
				}
			}
			for _, not := range tt.not {
				if strings.Contains(text, squeeze(not)) {
					t.Errorf("report has %q:\n%s", not, head(buf.String(), 30))
				}
			}
		})
	}
}

// squeeze collapses runs of spaces, so that column widths do not matter.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

func head(s string, lines int) string {
	parts := strings.SplitN(s, "\n", lines+1)
	return strings.Join(parts[:min(lines, len(parts))], "\n")
}

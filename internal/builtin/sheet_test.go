package builtin_test

import (
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
)

// An experiment run on a Spring Boot line (java.springBoot) wrote its
// Java targets on that line (java-platform@boot=3.5): its sheet still
// finds each row's result, and says what served it.
func TestSheetOnASpringBootLine(t *testing.T) {
	result := func(target string, rate float64, framework string) bench.TargetResult {
		stats := bench.Stats{Requests: 100, Successes: 100, Throughput: rate}
		return bench.TargetResult{Target: target, Status: bench.TargetSucceeded, Total: &stats,
			Stages: []bench.StageResult{{Stats: stats}, {Stats: stats}, {Stats: stats}}, Image: bench.ImageInfo{Runtime: "OpenJDK 25.0.3+9-LTS"},
			Settings: map[string]string{"info.framework": framework}}
	}
	boot35 := "Spring Boot 3.5.7 (Spring Framework 6.2.12, Apache Tomcat/10.1.48)"
	run := &bench.Run{ID: "r1", Status: bench.RunSucceeded,
		Spec: bench.RunSpec{Experiment: &bench.ExperimentRef{Name: "reactive", Part: "heavy", Scale: 0.6}, Java: bench.JavaOptions{SpringBoot: "3.5"},
			Profile: bench.Profile{Stages: []bench.Stage{{Name: "c50", Concurrency: 50}, {Name: "c200", Concurrency: 200}, {Name: "c400", Concurrency: 400}}}},
		Targets: []bench.TargetResult{result("java-platform@boot=3.5", 981, boot35), result("java-virtual@boot=3.5", 1319, boot35),
			result("java-reactive", 1853, "Spring Boot 4.1.1 (Spring Framework 7.0.9, Reactor Netty 1.3.8)"), result("go", 1967, "net/http (the standard library)")}}
	sheet, ok := builtin.SheetOf(run)
	if !ok {
		t.Fatal("no sheet")
	}
	var text strings.Builder
	for _, p := range sheet.Parts {
		text.WriteString(p.Line + "\n")
		if p.Table != nil {
			for _, r := range p.Table.Rows {
				text.WriteString(strings.Join(r, " | ") + "\n")
			}
		}
	}
	for _, want := range []string{"Tomcat, 200 platform threads | 981.0 | 981.0 | 981.0", "virtual threads | 1319.0 | 1319.0 | 1319.0", "71.2% of WebFlux's 1853.0", boot35 + " for java-platform@boot=3.5, java-virtual@boot=3.5"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the sheet lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "not in this run") {
		t.Errorf("a row not found:\n%s", text.String())
	}
}

package web_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// A run that recorded inside its targets shows the why with a flame graph
// per target at the stage that matters, platform beside virtual, their
// folded stacks to download, and links to the raw files in the API; all
// of it under the page's strict CSP (no style attribute, no script).
func TestRunWhy(t *testing.T) {
	e := newEnv(t)
	run := finishedRun("r0002", "recorded", 2, 1, bench.TargetJavaVirtual, bench.TargetJavaPlatform)
	one := 1
	for i := range run.Targets {
		tr := &run.Targets[i]
		tr.Settings = map[string]string{"threadModel": map[string]string{bench.TargetJavaVirtual: "virtual", bench.TargetJavaPlatform: "platform"}[tr.Target]}
		tr.Inside = &bench.Inside{Source: bench.ProfileJFR, JDK: 21,
			Why:   []bench.Diagnosis{{Target: tr.Key(), Stage: 1, Source: bench.ProfileJFR, Samples: 5}},
			Files: []bench.Artifact{{Target: tr.Key(), Kind: bench.ArtifactJFR, Bytes: 3}, {Target: tr.Key(), Stage: &one, Kind: bench.ArtifactFolded, Bytes: 29}}}
		if tr.Target == bench.TargetJavaVirtual {
			tr.Inside.Why[0].Causes = []bench.Cause{{Kind: bench.VerdictPinned, Share: 0.4,
				Sentence: "java-virtual on JDK 21: its carriers spent 40 % of the stage pinned (9 pins, 0.40 s in all), 100 % of it in com.example.Legacy.call:12"}}
		}
	}
	e.seed(t, run)
	for _, tr := range run.Targets {
		for _, f := range tr.Inside.Files {
			body := "abc"
			if f.Kind == bench.ArtifactFolded {
				body = "java.lang.Thread.run;work 5\n"
				f.Bytes = int64(len(body))
			}
			if err := e.db.SaveArtifact(context.Background(), run.ID, f, strings.NewReader(body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := e.get(t, "/ui/parts/runs/r0002")
	if p.status != http.StatusOK {
		t.Fatalf("status %d\n%s", p.status, p.body)
	}
	p.mustContain(t, "Why: what held each target back", "carriers spent 40 % of the stage pinned",
		`href="/runs/r0002/targets/java-virtual/recording.jfr" download="threadbench-r0002-java-virtual.jfr" data-download`,
		`href="/runs/r0002/targets/java-platform/stages/1/stacks.folded"`,
		`download="java-virtual-stage1.folded"`, `href="data:text/plain;charset=utf-8;base64,`)
	flames := regexp.MustCompile(`class="chart flame" data-chart="flame-\d+" role="img" aria-label="([^"]+)"`).FindAllStringSubmatch(p.body, -1)
	if len(flames) != 2 || !strings.HasPrefix(flames[0][1], "java-platform") || !strings.HasPrefix(flames[1][1], "java-virtual") {
		t.Errorf("flame graphs %v, want java-platform's then java-virtual's beside it", flames)
	}
	p.mustNotContain(t, "style=", "<style", "<script")
}

package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./internal/report -update rewrites it)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestWriteComparison_Golden(t *testing.T) {
	c := analysis.Compare(analysistest.BaseRun(t), analysistest.HeadRun(t), analysis.CompareOptions{})
	for _, format := range []string{"table", "markdown"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.WriteComparison(&buf, c, format); err != nil {
				t.Fatal(err)
			}
			golden(t, "comparison."+format+".golden", buf.Bytes())
		})
	}
}

func TestWriteComparison_JSON(t *testing.T) {
	c := analysis.Compare(analysistest.BaseRun(t), analysistest.HeadRun(t), analysis.CompareOptions{})
	var buf bytes.Buffer
	if err := report.WriteComparison(&buf, c, "json"); err != nil {
		t.Fatal(err)
	}
	var back bench.Comparison
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("output is not a comparison: %v", err)
	}
	if got, want := len(back.Targets), len(c.Targets); got != want {
		t.Errorf("%d targets read back, want %d", got, want)
	}
	if !strings.HasPrefix(buf.String(), "{\n  \"base\"") {
		t.Errorf("output not indented: %.40q", buf.String())
	}
}

func TestWriteRun_Golden(t *testing.T) {
	tests := []struct {
		name string
		run  *bench.Run
	}{
		{"run.table.golden", analysistest.BaseRun(t)},
		{"run_closed.table.golden", closedRun(t)},
		{"run_woken.table.golden", wokenRun(t)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.WriteRun(&buf, tt.run, summary(tt.run), "table"); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, buf.Bytes())
		})
	}
}

// wokenRun is the base run with its targets' wake-up probe read: a woken
// request thread's wait to run, per stage, shown in a column of its own
// (0.4 ms × the target's place × the stage's), the measured stages' mean
// weighted by their requests.
func wokenRun(t *testing.T) *bench.Run {
	t.Helper()
	run := analysistest.BaseRun(t)
	for i := range run.Targets {
		for j := range run.Targets[i].Resources {
			run.Targets[i].Resources[j].WakeDelayMs = 0.4 * float64(1+i) * float64(1+j)
		}
	}
	return run
}

// closedRun is a closed-model run whose Java target failed part-way.
func closedRun(t *testing.T) *bench.Run {
	t.Helper()
	spec := analysistest.OpenSpec()
	spec.Targets = []string{bench.TargetJavaVirtual}
	spec.Profile = bench.Profile{Name: "clients", Model: bench.ModelClosed, Stages: []bench.Stage{
		{Duration: bench.Duration(15 * time.Second), Concurrency: 50},
		{Duration: bench.Duration(15 * time.Second), Concurrency: 400},
	}}
	spec.Warmup.Disabled = true
	tr := bench.TargetResult{Target: bench.TargetJavaVirtual, Status: bench.TargetFailed,
		Error: "target stopped answering during stage 2", Image: bench.ImageInfo{Ref: "threadbench/java:dev"}}
	tr.Stages = []bench.StageResult{
		{Index: 0, Model: bench.ModelClosed, Concurrency: 50, Stats: analysistest.StatsOf(t, analysistest.Spread{Requests: 6000, Seconds: 15, Low: 100, High: 140})},
		{Index: 1, Model: bench.ModelClosed, Concurrency: 400, Stats: analysistest.StatsOf(t, analysistest.Spread{Requests: 9000, Failures: 900, Seconds: 15, Low: 120, High: 900})},
	}
	tr.Total = analysistest.TotalOf(t, tr.Stages)
	return &bench.Run{ID: "run-closed", Status: bench.RunFailed, Error: "1 of 1 targets failed", Spec: spec,
		CreatedAt: analysistest.Created, Targets: []bench.TargetResult{tr}}
}

func TestWriteRun_JSON(t *testing.T) {
	r := analysistest.BaseRun(t)
	var buf bytes.Buffer
	if err := report.WriteRun(&buf, r, nil, "json"); err != nil {
		t.Fatal(err)
	}
	var back bench.Run
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("output is not a run: %v", err)
	}
	if got, want := back.Targets[1].Total.Histogram, r.Targets[1].Total.Histogram; got != want {
		t.Errorf("histogram not kept through JSON")
	}
}

func TestWriteRunList_Golden(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteRunList(&buf, []bench.RunSummary{analysistest.HeadRun(t).Summary(), analysistest.BaseRun(t).Summary(), closedRun(t).Summary()}, "table"); err != nil {
		t.Fatal(err)
	}
	golden(t, "runlist.table.golden", buf.Bytes())
}

func TestWriteSecondLine(t *testing.T) {
	b := bench.Bucket{Second: 12, Stage: 1, Stats: bench.Stats{Requests: 200, Successes: 197, Throughput: 197,
		Latency: bench.Latency{P99: 105.25}}}
	var buf bytes.Buffer
	if err := report.WriteSecondLine(&buf, "java-platform", b, "plateau"); err != nil {
		t.Fatal(err)
	}
	golden(t, "secondline.golden", buf.Bytes())
}

func TestWrite_UnknownFormat(t *testing.T) {
	c := analysis.Compare(analysistest.BaseRun(t), analysistest.HeadRun(t), analysis.CompareOptions{})
	tests := []struct {
		name  string
		write func(*bytes.Buffer) error
		valid string
	}{
		{"comparison", func(w *bytes.Buffer) error { return report.WriteComparison(w, c, "xml") }, "table, markdown, json"},
		{"run", func(w *bytes.Buffer) error {
			return report.WriteRun(w, analysistest.BaseRun(t), summary(analysistest.BaseRun(t)), "markdown")
		}, "table, json"},
		{"run list", func(w *bytes.Buffer) error { return report.WriteRunList(w, nil, "yaml") }, "table, json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := tt.write(&buf)
			if got, want := bench.ErrorCode(err), bench.EINVALID; got != want {
				t.Fatalf("code = %q, want %q (err %v)", got, want, err)
			}
			if !strings.Contains(err.Error(), "(valid: "+tt.valid+")") {
				t.Errorf("error %q does not name the valid formats %q", err, tt.valid)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes before failing", buf.Len())
			}
		})
	}
}

func TestWrite_WriterError(t *testing.T) {
	err := report.WriteRun(failingWriter{}, analysistest.BaseRun(t), summary(analysistest.BaseRun(t)), "table")
	if !errors.Is(err, errBrokenPipe) {
		t.Errorf("err = %v, want the writer's error wrapped", err)
	}
}

var errBrokenPipe = errors.New("broken pipe")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errBrokenPipe }

func TestWriteReport_Golden(t *testing.T) {
	for _, format := range report.ReportFormats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.WriteReport(&buf, analyzed(threeTargetSource(t), analysis.ReportOptions{}), format); err != nil {
				t.Fatal(err)
			}
			golden(t, "report."+format+".golden", buf.Bytes())
		})
	}
}

// TestWriteReport_HTMLStaysSmall renders a nine-minute run of three
// targets, a point a second in every series: the page must stay well under
// the 2 MB a self-contained report may weigh, tooltips included.
func TestWriteReport_HTMLStaysSmall(t *testing.T) {
	src := threeTargetSource(t)
	const seconds = 540
	for i := range src.Run.Targets {
		tr := &src.Run.Targets[i]
		long := make([]bench.Bucket, seconds)
		for s := range long {
			long[s] = tr.Seconds[s%len(tr.Seconds)]
			long[s].Second = s
		}
		tr.Seconds = long
	}
	for key, series := range src.Series {
		for j := range series {
			pts := series[j].Points
			var long []bench.Point
			for s := -10; s < seconds; s++ {
				long = append(long, bench.Point{T: float64(s), V: pts[(s+10)%len(pts)].V})
			}
			series[j].Points = long
		}
		src.Series[key] = series
	}
	var buf bytes.Buffer
	if err := report.WriteReport(&buf, analyzed(src, analysis.ReportOptions{}), "html"); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if size := buf.Len(); size > 1<<20 {
		t.Errorf("the HTML report of a nine-minute run weighs %d bytes, want under 1 MiB", size)
	}
	if !strings.Contains(page, `<g class="points"`) {
		t.Error("no per-point tooltips: long series should be thinned, not stripped of them")
	}
	outside := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
	for _, banned := range []string{"<script", "http://", "https://", "<link", "@import", "url("} {
		if strings.Contains(outside, banned) {
			t.Errorf("the page contains %q: it must open offline and ask nothing of anyone", banned)
		}
	}
	t.Logf("nine-minute three-target report: %d bytes", buf.Len())
}

// A significant change smaller than the minimum effect is no verdict, and
// the table says why rather than calling a p of 0.02 "no significant
// difference" bare.
func TestWriteComparison_SignificantUnderMinimumEffect(t *testing.T) {
	sig := func(p float64) *bench.Significance {
		return &bench.Significance{P: p, NA: 10, NB: 10, Alpha: 0.05, Significant: p < 0.05}
	}
	c := bench.Comparison{NoiseThreshold: 5, Alpha: 0.05, Targets: []bench.TargetComparison{{
		Target: "go",
		Metrics: []bench.MetricDelta{
			{Name: "p90", Unit: "ms", Base: 394.2, Head: 405.8, Change: 2.9, Verdict: bench.VerdictNoDifference, Test: sig(0.022)},
			{Name: "p99", Unit: "ms", Base: 500, Head: 503, Change: 0.6, Verdict: bench.VerdictNoDifference, Test: sig(0.43)},
		},
	}}}
	var buf bytes.Buffer
	if err := report.WriteComparison(&buf, c, "table"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"no significant difference (p = 0.022, n = 10+10; under the minimum effect)",
		"no significant difference (p = 0.43, n = 10+10)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}

// A run's table says a target's settings within a line, and how many more
// the JSON holds.
func TestSettingsLine(t *testing.T) {
	settings := map[string]string{"a": "1", "b": "2"}
	if got := report.SettingsLine(settings); got != "a=1 b=2" {
		t.Errorf("short: %q", got)
	}
	settings["javaToolOptions"] = strings.Repeat("-XX:Option=x ", 40)
	settings["z"] = "3"
	if got := report.SettingsLine(settings); got != "a=1 b=2 … (2 more: -o json)" {
		t.Errorf("long: %q", got)
	}
}

package report

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// topErrors is how many distinct error messages a run table lists per target.
const topErrors = 3

var (
	stageHeader = []string{"STAGE", "MODEL", "REQUESTS", "SUCCESS", "OFFERED req/s", "THROUGHPUT req/s",
		"P50 ms", "P90 ms", "P99 ms", "MAX ms", "ERRORS"}
)

// WriteRun writes one run as "table" (a header, the cross-target summary of
// its report, then per target its stages, total and resources) or "json"
// (the run document, indented). rep is the run's analysis, whose summary
// the table opens with; nil for none. Any other format is an EINVALID
// error.
func WriteRun(w io.Writer, r *bench.Run, rep *bench.Report, format string) error {
	f, err := lookup(KindRun, format)
	if err != nil {
		return err
	}
	return f.run(w, r, rep)
}

func runTable(w io.Writer, r *bench.Run, rep *bench.Report) error {
	var buf bytes.Buffer
	switch {
	case r.Spec.Capacity != nil && len(r.Targets) > 0: // a capacity run opens with its answer
		writeReportSummary(&buf, rep)
		fmt.Fprintln(&buf)
		writeRunHeader(&buf, r)
	case len(r.Targets) > 0:
		writeRunHeader(&buf, r)
		fmt.Fprintln(&buf)
		writeReportSummary(&buf, rep)
	default:
		writeRunHeader(&buf, r)
	}
	for i := range r.Targets {
		fmt.Fprintln(&buf)
		writeTargetResult(&buf, r, &r.Targets[i])
	}
	return flush(w, &buf)
}

func writeRunHeader(buf *bytes.Buffer, r *bench.Run) {
	tw := newTable(buf)
	row := func(key, value string) { fmt.Fprintf(tw, "%s\t%s\n", key, value) }
	row("run", r.ID)
	row("name", units.OrDash(r.Name))
	if len(r.Spec.Labels) > 0 {
		row("labels", labelWords(r.Spec.Labels))
	}
	row("status", string(r.Status))
	if r.Error != "" {
		row("error", r.Error)
	}
	row("created", runTimes(r))
	p := r.Spec.Profile
	if c := r.Spec.Capacity; c != nil { // its profile is the search's own, its one stage replaced by the trials
		row("search", analysis.DescribeSearch(*c))
	} else {
		row("profile", fmt.Sprintf("%s (%s model): %s", units.OrDash(p.Name), p.LoadModel().Name(), analysis.DescribeStages(p)))
	}
	row("workload", analysis.DescribeWorkload(analysis.EffectiveWorkload(r.Spec)))
	row("warm-up", analysis.DescribeWarmup(r.Spec.Warmup)+warmupNote(r.Spec.Warmup))
	row("limits", analysis.DescribeLimits(r.Spec.Limits)+" per target")
	if analysis.HasJava(r.Spec) {
		row("java", analysis.DescribeJava(r.Spec.Java))
	}
	if r.Database != nil {
		row("database", databaseLine(r.Database))
	}
	writeEnvironment(row, r.Environment)
	tw.Flush()
}

func writeEnvironment(row func(key, value string), env bench.Environment) {
	if !env.Recorded() {
		row("environment", "not recorded")
		return
	}
	row("host", fmt.Sprintf("%s, %s, kernel %s", units.OrDash(env.Host), units.OrDash(env.OS), units.OrDash(env.Kernel)))
	row("cpu", fmt.Sprintf("%s x %s, memory %s", units.OrDash(env.CPUModel), units.OrDash(analysis.CountString(env.CPUs)), gib(env.MemoryBytes)))
	row("docker", fmt.Sprintf("%s, cgroup %s, orchestrator %s", units.OrDash(env.DockerVersion), units.OrDash(env.CgroupVersion), units.OrDash(env.OrchestratorGo)))
	row("cpusets", fmt.Sprintf("load %s, targets %s (split %s)", units.OrDash(env.LoadCPUSet), units.OrDash(env.TargetCPUSet), analysis.SplitString(env.CPUSplitApplied)))
	if len(env.Generators) > 0 {
		row("load generators", generatorsLine(env.Generators))
	}
	if apart(env) {
		for _, ee := range env.Engines {
			row("targets on "+ee.Name, engineLine(ee))
		}
	}
	if env.MixedEngines {
		row("engines", mixedEnginesNote(env))
	}
}

func runTimes(r *bench.Run) string {
	s := shortTime(r.CreatedAt)
	if r.StartedAt != nil {
		s += ", started " + shortTime(*r.StartedAt)
	}
	if r.FinishedAt != nil {
		s += ", finished " + shortTime(*r.FinishedAt)
		if r.StartedAt != nil {
			s += fmt.Sprintf(" (took %s)", r.FinishedAt.Sub(*r.StartedAt).Round(1e9))
		}
	}
	return s
}

func warmupNote(w bench.Warmup) string {
	if w.Disabled {
		return ""
	}
	return ", excluded from every summary"
}

func gib(bytes int64) string {
	if bytes == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f GiB", float64(bytes)/(1<<30))
}

// settingsWidth bounds the settings a run's table prints: a target
// records every knob it ran with (a thousand characters for a JVM: its
// JAVA_TOOL_OPTIONS alone is half of that), which buried the table a
// reader came for; the JSON and `runs show -o json` keep them all.
const settingsWidth = 160

// settingsLine says a target's settings within settingsWidth, saying how
// many more there are and where they are.
func settingsLine(settings map[string]string) string {
	keys := slices.Sorted(maps.Keys(settings))
	var shown []string
	width := 0
	for _, k := range keys {
		pair := k + "=" + settings[k]
		if width+len(pair) > settingsWidth && len(shown) > 0 {
			break
		}
		shown, width = append(shown, pair), width+len(pair)+1
	}
	line := strings.Join(shown, " ")
	if more := len(keys) - len(shown); more > 0 {
		line += fmt.Sprintf(" … (%d more: -o json)", more)
	}
	return line
}

func writeTargetResult(buf *bytes.Buffer, r *bench.Run, t *bench.TargetResult) {
	fmt.Fprintf(buf, "target %s: %s\n", t.Key(), t.Status)
	if t.Key() != t.Target {
		fmt.Fprintf(buf, "  runs %s\n", t.Target)
	}
	tw := newTable(buf)
	row := func(key, value string) { fmt.Fprintf(tw, "  %s\t%s\n", key, value) }
	if t.Error != "" {
		row("error", t.Error)
	}
	row("image", imageLine(t.Image))
	if t.StartupMs != 0 {
		row("startup", fmt.Sprintf("%s ms", units.Num(t.StartupMs)))
	}
	if t.WarmupSteady != nil {
		row("warm-up", analysis.DescribeWarmupSteady(*t.WarmupSteady))
	}
	if t.CPUSet != "" {
		row("cpuset", t.CPUSet)
	}
	if len(t.Settings) > 0 {
		row("settings", settingsLine(t.Settings))
	}
	tw.Flush()
	if t.Warmup != nil || len(t.Stages) > 0 || t.Total != nil {
		fmt.Fprintln(buf)
		writeStageTable(buf, r.Spec.Profile, t)
	}
	if len(t.Generators) > 0 {
		fmt.Fprintln(buf)
		writeGenerators(buf, t)
	}
	if len(t.Resources) > 0 {
		fmt.Fprintln(buf)
		writeResourceTable(buf, t)
	}
	if len(t.Database) > 0 {
		fmt.Fprintln(buf)
		writeDatabaseTable(buf, t)
	}
}

func imageLine(img bench.ImageInfo) string {
	s := units.OrDash(img.Ref)
	if img.Runtime != "" {
		s += " (" + img.Runtime + ")"
	}
	if img.Cached {
		s += ", cached"
	}
	return s
}

// writeStageTable writes the warm-up (marked, excluded), every measured
// stage, the total, and the most frequent errors.
func writeStageTable(buf *bytes.Buffer, p bench.Profile, t *bench.TargetResult) {
	tw := newTable(buf)
	rows := [][]string{stageHeader}
	if t.Warmup != nil {
		rows = append(rows, stageRow("warm-up*", stageModel(p, *t.Warmup), t.Warmup.Stats))
	}
	for _, s := range analysis.MeasuredStages(t) {
		rows = append(rows, stageRow(analysis.StageLabel(s.Index, s.Name), stageModel(p, s), s.Stats))
	}
	if t.Total != nil {
		rows = append(rows, stageRow(totalLabel(t), "-", *t.Total))
	}
	writeRows(tw, "  ", rows)
	tw.Flush()
	if t.Warmup != nil {
		fmt.Fprintf(buf, "  * warm-up is excluded from the total\n")
	}
	writeFlags(buf, t)
	if t.Total != nil {
		writeTopErrors(buf, t.Total.Errors)
	}
}

// totalLabel names a result's total: a capacity search's is its last
// confirmation's, not a sum of trials at different rates.
func totalLabel(t *bench.TargetResult) string {
	if t.Capacity != nil {
		return "answer (last confirmation)"
	}
	return "total"
}

// writeFlags lists the stages whose figures may not be the target's alone
// (generator-bound, disturbed), with the figures that say so.
func writeFlags(buf *bytes.Buffer, t *bench.TargetResult) {
	for _, s := range analysis.MeasuredStages(t) {
		for _, f := range s.Flags {
			fmt.Fprintf(buf, "  ! %s %s: %s\n", analysis.StageLabel(s.Index, s.Name), f.Kind, f.Reason)
		}
		if s.Died != "" {
			fmt.Fprintf(buf, "  ! %s the target died: %s\n", analysis.StageLabel(s.Index, s.Name), s.Died)
		}
	}
}

// stageModel says how load was offered in a stage. Closed stages name their
// clients so that nobody mistakes a client count for an arrival rate.
func stageModel(p bench.Profile, s bench.StageResult) string {
	model := s.LoadModel()
	level := analysis.ValueWithUnit(s.Level(), model.Unit())
	if !model.RateLevel() {
		return fmt.Sprintf("%s (%s)", model.Name(), level)
	}
	if !s.Warmup && s.Index >= 0 && s.Index < len(p.Stages) && p.Stages[s.Index].Ramp {
		return fmt.Sprintf("%s, ramp to %s", model.Name(), level)
	}
	return fmt.Sprintf("%s, %s", model.Name(), level)
}

func stageRow(label, model string, s bench.Stats) []string {
	return []string{
		label, model,
		fmt.Sprint(s.Requests),
		fmt.Sprintf("%.2f%%", s.SuccessRatio()*100),
		units.Num(s.OfferedRate), units.Num(s.Throughput),
		units.Num(s.Latency.P50), units.Num(s.Latency.P90), units.Num(s.Latency.P99), units.Num(s.Latency.Max),
		fmt.Sprint(s.Requests - s.Successes),
	}
}

func writeTopErrors(buf *bytes.Buffer, errs []bench.ErrorCount) {
	sorted := append([]bench.ErrorCount(nil), errs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Count != sorted[j].Count {
			return sorted[i].Count > sorted[j].Count
		}
		return sorted[i].Message < sorted[j].Message
	})
	for i, e := range sorted {
		if i == topErrors {
			fmt.Fprintf(buf, "  ... and %d more kinds of error\n", len(sorted)-topErrors)
			break
		}
		fmt.Fprintf(buf, "  error: %d x %s\n", e.Count, e.Message)
	}
}

// writeResourceTable writes each stage's resource use and the aggregate of
// the measured stages: a column per thread kind and memory figure (the
// built-in targets' always, others when reported).
func writeResourceTable(buf *bytes.Buffer, t *bench.TargetResult) {
	names := map[int]string{}
	for _, s := range t.Stages {
		names[s.Index] = s.Name
	}
	var labels []string
	var sums []analysis.ResourceSummary
	for _, r := range t.Resources {
		label := analysis.StageLabel(r.Stage, names[r.Stage])
		if r.Warmup {
			label = "warm-up*"
		}
		labels, sums = append(labels, label), append(sums, analysis.StageSummary(r))
	}
	if s, ok := analysis.SummarizeResources(t); ok {
		labels, sums = append(labels, "measured"), append(sums, s)
	}
	threads := analysis.KindsOf(analysis.TableThreadKinds, bench.ThreadKinds, analysis.ThreadsOf, sums...)
	memory := analysis.KindsOf(analysis.TableMemoryKinds, bench.MemoryKinds, analysis.MemoryOf, sums...)
	woken := slices.ContainsFunc(sums, func(s analysis.ResourceSummary) bool { return s.WakeDelayMs > 0 })
	tw := newTable(buf)
	rows := [][]string{resourceHeader(threads, memory, woken)}
	for i, s := range sums {
		rows = append(rows, resourceRow(labels[i], s, threads, memory, woken))
	}
	writeRows(tw, "  ", rows)
	tw.Flush()
	writeScrapeFailures(buf, t.Resources)
}

// resourceHeader names the columns: "PEAK PLATFORM THREADS", "PEAK
// WORKING SET MiB"..., and "WOKEN WAIT ms" where a target times how long a
// woken request thread waited to run (woken).
func resourceHeader(threads, memory []string, woken bool) []string {
	header := []string{"STAGE"}
	for _, kind := range threads {
		header = append(header, strings.ToUpper("peak "+bench.ThreadLabel(kind)))
	}
	for _, kind := range memory {
		label := analysis.MemoryLabel(kind)
		if kind == bench.MemoryThreadStacks {
			label = "stacks" // the column's old name, kept
		}
		header = append(header, strings.ToUpper("peak "+label)+" MiB")
	}
	header = append(header, "CPU s / 1k req", "GC PAUSES (TIME)")
	if woken {
		header = append(header, "WOKEN WAIT ms")
	}
	return header
}

// resourceRow shows figures a target did not report (a Go target has no
// JVM threads) as "-" rather than as a misleading zero.
func resourceRow(label string, s analysis.ResourceSummary, threads, memory []string, woken bool) []string {
	cell := func(v float64, unit string) string {
		if v == 0 {
			return "-"
		}
		return analysis.Value(v, unit)
	}
	row := []string{label}
	for _, kind := range threads {
		row = append(row, cell(s.Threads[kind], analysis.ThreadUnit(kind)))
	}
	for _, kind := range memory {
		row = append(row, cell(s.MemoryMiB[kind], analysis.UnitMiB))
	}
	row = append(row, cell(s.CPUPer1k, analysis.UnitSeconds), gcCell(s))
	if woken {
		row = append(row, cell(s.WakeDelayMs, analysis.UnitMs))
	}
	return row
}

func gcCell(s analysis.ResourceSummary) string {
	switch {
	case s.GCPauses == 0:
		return "-"
	case s.GCPauseSeconds == 0:
		return analysis.Value(s.GCPauses, analysis.UnitPauses)
	}
	return fmt.Sprintf("%s (%s s)", analysis.Value(s.GCPauses, analysis.UnitPauses), analysis.Value(s.GCPauseSeconds, analysis.UnitSeconds))
}

func writeScrapeFailures(buf *bytes.Buffer, resources []bench.StageResources) {
	failures := 0
	for _, r := range resources {
		failures += r.ScrapeFailures
	}
	if failures > 0 {
		fmt.Fprintf(buf, "  %d metric scrapes failed; resource figures may miss peaks\n", failures)
	}
}

// WriteRunList writes one line per run summary as "table" (id, created,
// status, name, targets, profile, and each result's throughput, p99 and
// flags) or "json" (the summaries, indented). Any other format is an
// EINVALID error.
func WriteRunList(w io.Writer, runs []bench.RunSummary, format string) error {
	f, err := lookup(KindRunList, format)
	if err != nil {
		return err
	}
	return f.runList(w, runs)
}

func runListTable(w io.Writer, runs []bench.RunSummary) error {
	var buf bytes.Buffer
	tw := newTable(&buf)
	writeRows(tw, "", [][]string{{"ID", "CREATED", "STATUS", "NAME", "LABELS", "TARGETS", "PROFILE", "HEADLINE"}})
	for _, r := range runs {
		writeRows(tw, "", [][]string{runListRow(r)})
	}
	tw.Flush()
	return flush(w, &buf)
}

func runListRow(r bench.RunSummary) []string {
	var targets []string
	for _, t := range r.Targets {
		if !slices.Contains(targets, t.Target) {
			targets = append(targets, t.Target)
		}
	}
	return []string{r.ID, shortTime(r.CreatedAt), string(r.Status), units.OrDash(r.Name), units.OrDash(labelWords(r.Labels)),
		units.OrDash(strings.Join(targets, ",")), units.OrDash(r.Profile), units.OrDash(headline(r))}
}

// headline is each result's throughput and p99 over the whole attack and
// the flags of its stages, or its status when it has no figures.
func headline(r bench.RunSummary) string {
	parts := make([]string, len(r.Targets))
	for i, t := range r.Targets {
		if t.Throughput == 0 && t.P99 == 0 {
			parts[i] = fmt.Sprintf("%s %s", t.Key, t.Status)
		} else {
			parts[i] = fmt.Sprintf("%s %s req/s p99 %s ms", t.Key, units.Num(t.Throughput), units.Num(t.P99))
		}
		if len(t.Flags) > 0 {
			parts[i] += " [" + strings.Join(t.Flags, ", ") + "]"
		}
	}
	return strings.Join(parts, "; ")
}

// WriteSecondLine writes one compact line about one second of an attack, for
// the CLI's live view: elapsed seconds, target, stage, throughput, p99 and
// failed requests.
func WriteSecondLine(w io.Writer, target string, b bench.Bucket, stageName string) error {
	_, err := fmt.Fprintf(w, "%5ds  %-13s  %-12s  %9s req/s  p99 %9s ms  errors %d\n",
		b.Second, target, units.OrDash(stageName), units.Num(b.Stats.Throughput), units.Num(b.Stats.Latency.P99),
		b.Stats.Requests-b.Stats.Successes)
	if err != nil {
		return fmt.Errorf("write progress: %w", err)
	}
	return nil
}

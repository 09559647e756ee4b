package report

import (
	"bytes"
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
)

// csvHeader are the columns of WriteReportCSV. Rows of kind "stage" are one
// result (target or case, in one round counted from 1) × stage × request:
// stage is the stage's index (from 0), or empty with stage_name "whole
// attack" for the whole attack; request is "all" for every request
// together. Rows of kind "second" are one result × second of
// the attack, every request together. Rates are per second, latencies in
// milliseconds (stage rows recomputed from the stored histograms), bytes
// on the wire, generator_cpu_share the load generator's share of its CPUs
// (0..1), flags the stage's generator-bound or disturbed flags; why the
// kinds of the causes the stage's diagnosis found (pinned, cpu-bound...)
// and why_sentence its first, on a stage's rows of every request.
var csvHeader = []string{
	"row", "target", "label", "round", "stage", "stage_name", "second", "request",
	"requests", "completed", "errors", "error_rate_pct", "offered_rps", "throughput_rps",
	"latency_min_ms", "latency_mean_ms", "latency_p50_ms", "latency_p90_ms", "latency_p95_ms",
	"latency_p99_ms", "latency_p999_ms", "latency_max_ms", "bytes_in", "bytes_out",
	"generator_cpu_share", "flags", "why", "why_sentence",
}

// WriteReportCSV writes a run's figures as CSV for spreadsheets and pandas:
// one row per result × stage × request and one per result × second, with
// the columns of csvHeader.
func WriteReportCSV(w io.Writer, r *bench.Run) error {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	_ = cw.Write(csvHeader)
	for i := range r.Targets {
		t := &r.Targets[i]
		for _, row := range stageRows(t) {
			_ = cw.Write(row)
		}
		for _, b := range t.Seconds {
			_ = cw.Write(secondRow(t, b))
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return flush(w, &buf)
}

// stageRows are the whole attack's rows, then each stage's: every request
// together, then each request of a mixed workload.
func stageRows(t *bench.TargetResult) [][]string {
	var rows [][]string
	if t.Total != nil {
		m := analysis.WholeAttack(t)
		rows = append(rows, requestRows(t, "", analysis.ScopeWholeName, analysis.PlainOf(m.Stats, m.Histograms), m.Stats, t.Requests, nil)...)
	}
	for _, s := range analysis.MeasuredStages(t) {
		m := analysis.StageMeasured(s)
		rows = append(rows, requestRows(t, strconv.Itoa(s.Index), s.Name, analysis.PlainOf(m.Stats, m.Histograms), m.Stats, s.Requests, &s)...)
	}
	return rows
}

func requestRows(t *bench.TargetResult, stage, name string, all analysis.Plain, st bench.Stats, requests []bench.NamedStats, s *bench.StageResult) [][]string {
	share, flags := "", ""
	if s != nil {
		share, flags = generatorShare(s.Generator), flagKinds(s.Flags)
	}
	rows := [][]string{append(csvRow("stage", t, stage, name, "", "all", all, st.OfferedRate, share, flags), whyCells(t, s)...)}
	if len(requests) < 2 {
		return rows
	}
	for _, ns := range requests {
		rows = append(rows, append(csvRow("stage", t, stage, name, "", ns.Name, analysis.RequestPlain(ns), ns.Stats.OfferedRate, "", ""), "", ""))
	}
	return rows
}

func secondRow(t *bench.TargetResult, b bench.Bucket) []string {
	p := analysis.PlainOf(b.Stats, nil)
	return append(csvRow("second", t, strconv.Itoa(b.Stage), "", strconv.Itoa(b.Second), "all", p, b.Stats.OfferedRate, generatorShare(b.Generator), ""), "", "")
}

// whyCells are a stage's why columns: its causes' kinds and the first's
// sentence; empty for the whole attack.
func whyCells(t *bench.TargetResult, s *bench.StageResult) []string {
	if s == nil {
		return []string{"", ""}
	}
	d := analysis.WhyStage(t, *s)
	kinds := make([]string, len(d.Causes))
	for i, c := range d.Causes {
		kinds[i] = c.Kind
	}
	first := ""
	if len(d.Causes) > 0 {
		first = d.Causes[0].Sentence
	}
	return []string{strings.Join(kinds, ";"), first}
}

func csvRow(kind string, t *bench.TargetResult, stage, stageName, second, request string, p analysis.Plain, offered float64, share, flags string) []string {
	l := p.Latency
	return []string{
		kind, t.Target, t.Label(), strconv.Itoa(t.Round + 1), stage, stageName, second, request,
		strconv.FormatInt(p.Requests, 10), strconv.FormatInt(p.Completed, 10), strconv.FormatInt(p.Errors, 10),
		csvNum(p.ErrorRate), csvNum(offered), csvNum(p.Throughput),
		csvNum(l.Min), csvNum(l.Mean), csvNum(l.P50), csvNum(l.P90), csvNum(l.P95), csvNum(l.P99), csvNum(l.P999), csvNum(l.Max),
		strconv.FormatInt(p.BytesIn, 10), strconv.FormatInt(p.BytesOut, 10), share, flags,
	}
}

func generatorShare(g *bench.Generator) string {
	if g == nil {
		return ""
	}
	return csvNum(g.CPUShare)
}

func flagKinds(flags []bench.Flag) string {
	kinds := make([]string, len(flags))
	for i, f := range flags {
		kinds[i] = f.Kind
	}
	return strings.Join(kinds, ";")
}

// csvNum writes a figure with three decimals: exact for latencies kept in
// microseconds, and stable from one run of the renderer to the next.
func csvNum(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

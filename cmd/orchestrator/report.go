package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/client"
	"github.com/threadbench/threadbench/internal/report"
)

func newReportCmd(g *globalState) *cobra.Command {
	var (
		format, out          string
		threshold, maxErrors float64
	)
	cmd := &cobra.Command{
		Use:   "report RUN",
		Short: "The cross-target report of a run: figures with intervals, ranks, bounds, findings, charts",
		Long: "Report one run across its targets: throughput, latency, errors, bytes and resources for the whole\n" +
			"attack and per stage (and per request of a mixed workload), each with a 95% interval; the targets\n" +
			"ranked per figure with Mann-Whitney tests; the pairs users ask about; Little's law and thread-pool\n" +
			"bounds beside the measured throughput; and findings drawn from those figures.\n\n" +
			wrapText("Formats: "+report.FormatNotes(report.KindReport)+".", helpWidth),
		Example: "  orchestrator report r06h0fxxw0gx83ckc --format markdown\n" +
			"  orchestrator report r06h0fxxw0gx83ckc --format html --out report.html",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			chosen, err := checkReportFlags(format, threshold, maxErrors)
			if err != nil {
				return err
			}
			opts := analysis.ReportOptions{MinEffect: threshold, MaxErrors: maxErrors / 100}
			var buf bytes.Buffer
			err = withHistory(g, cmd, func(h history) error {
				return writeRunReport(cmd.Context(), g, h, &buf, args[0], chosen, opts)
			})
			if err != nil {
				return err
			}
			return writeOut(g.stdout, out, buf.Bytes())
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", report.FormatTable, strings.Join(report.FormatNames(report.KindReport), ", "))
	f.StringVar(&out, "out", "", "write the report to this file instead of stdout")
	f.Float64Var(&threshold, "threshold", bench.DefaultNoiseThreshold, "minimum effect in percent: smaller differences are never called better or worse")
	f.Float64Var(&maxErrors, "max-errors", 100*bench.DefaultMaxErrors, "the percentage of a stage's requests that may fail for a ranking or pair verdict to be drawn from it")
	return cmd
}

// checkReportFlags returns the format --format names, refusing an unknown
// one, then a negative threshold.
func checkReportFlags(format string, threshold, maxErrors float64) (report.Format, error) {
	f, err := report.LookupFormat(report.KindReport, format, "format")
	if err != nil {
		return report.Format{}, err
	}
	if threshold < 0 {
		return report.Format{}, bench.FieldErrorf("threshold", "must not be negative, got %g", threshold)
	}
	if err := bench.CheckMaxErrors("max-errors", maxErrors); err != nil {
		return report.Format{}, err
	}
	return f, nil
}

// helpWidth is the width help texts are wrapped at.
const helpWidth = 100

// wrapText breaks a paragraph into lines of at most width bytes, between
// words (a longer word stands on a line of its own).
func wrapText(s string, width int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(s) {
		switch {
		case i == 0:
		case line+1+len(word) > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}

// writeRunReport writes the report of run id: rendered by the daemon when
// there is one, else here from the local history and its series.
func writeRunReport(ctx context.Context, g *globalState, h history, w io.Writer, id string, format report.Format, opts analysis.ReportOptions) error {
	if c, ok := h.(*client.Client); ok {
		body, err := c.Report(ctx, id, format.Name, opts.MinEffect, 100*opts.MaxErrors)
		if err != nil {
			return err
		}
		_, err = w.Write(body)
		return err
	}
	run, err := h.FindRunByID(ctx, id)
	if err != nil {
		return err
	}
	series, _ := h.(bench.SeriesStore)
	src, err := report.LoadSource(ctx, series, run, g.catalog.Infos(), format.NeedsSeries)
	if err != nil {
		return err
	}
	rep := analysis.Analyze(run, opts)
	src.Report = &rep
	return report.WriteReport(w, src, format.Name)
}

// writeOut writes body to the file path, or to stdout when path is empty.
func writeOut(stdout io.Writer, path string, body []byte) error {
	if path == "" {
		_, err := stdout.Write(body)
		return err
	}
	if err := os.WriteFile(path, body, 0o644); err != nil {
		return bench.Errorf(bench.EINVALID, "write %s: %v", path, err)
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", path, len(body))
	return nil
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/client"
	"github.com/threadbench/threadbench/internal/report"
)

func newReportCmd(g *globalState) *cobra.Command {
	var (
		format, out string
		threshold   float64
	)
	cmd := &cobra.Command{
		Use:   "report RUN",
		Short: "The cross-target report of a run: figures with intervals, ranks, bounds, findings, charts",
		Long: "Report one run across its targets: throughput, latency, errors, bytes and resources for the whole\n" +
			"attack and per stage (and per request of a mixed workload), each with a 95% interval; the targets\n" +
			"ranked per figure with Mann-Whitney tests; the pairs users ask about; Little's law and thread-pool\n" +
			"bounds beside the measured throughput; and findings drawn from those figures.\n\n" +
			"Formats: table, markdown (pastes into an issue or a PR), json, csv (one row per target x stage x\n" +
			"request and one per target x second), html (one self-contained page with charts).",
		Example: "  orchestrator report r06h0fxxw0gx83ckc --format markdown\n" +
			"  orchestrator report r06h0fxxw0gx83ckc --format html --out report.html",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkReportFlags(format, threshold); err != nil {
				return err
			}
			var buf bytes.Buffer
			err := withHistory(g, cmd, func(h history) error {
				return writeRunReport(cmd.Context(), g, h, &buf, args[0], format, threshold)
			})
			if err != nil {
				return err
			}
			return writeOut(g.stdout, out, buf.Bytes())
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", report.FormatTable, strings.Join(report.ReportFormats, ", "))
	f.StringVar(&out, "out", "", "write the report to this file instead of stdout")
	f.Float64Var(&threshold, "threshold", bench.DefaultNoiseThreshold, "minimum effect in percent: smaller differences are never called better or worse")
	return cmd
}

func checkReportFlags(format string, threshold float64) error {
	for _, f := range report.ReportFormats {
		if f == format {
			if threshold < 0 {
				return bench.FieldErrorf("threshold", "must not be negative, got %g", threshold)
			}
			return nil
		}
	}
	return bench.FieldErrorf("format", "unknown format %q (valid: %s)", format, strings.Join(report.ReportFormats, ", "))
}

// writeRunReport writes the report of run id: rendered by the daemon when
// there is one, else here from the local history and its series.
func writeRunReport(ctx context.Context, g *globalState, h history, w io.Writer, id, format string, threshold float64) error {
	if c, ok := h.(*client.Client); ok {
		body, err := c.Report(ctx, id, format, threshold)
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
	src := report.Source{Run: run, Targets: g.catalog.Infos()}
	if series, ok := h.(bench.SeriesStore); ok && format == report.FormatHTML {
		if src.Series, err = report.LoadSeries(ctx, series, run, src.Targets); err != nil {
			return err
		}
	}
	return report.WriteReport(w, src, format, report.ReportOptions{MinEffect: threshold})
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
